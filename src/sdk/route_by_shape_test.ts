import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { type JSONRPCMessage, ListToolsRequestSchema, Server, type Transport } from "./mod.ts";
import { routeByShape } from "./route_by_shape.ts";

/** A transport whose incoming messages the test pushes and whose outgoing ones it collects. */
class MemoryTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly sent: JSONRPCMessage[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

Deno.test("routeByShape: requests, notifications and the client's answers reach the SDK's own handlers", async () => {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  const transport = new MemoryTransport();
  await server.connect(transport);
  routeByShape(server, transport);
  const deliver = (message: Record<string, unknown>) => transport.onmessage!(message as JSONRPCMessage);
  deliver({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "c", version: "1" } },
  });
  deliver({ jsonrpc: "2.0", method: "notifications/initialized" });
  deliver({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  deliver({ jsonrpc: "2.0", id: 3, method: "no/such" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const answers = transport.sent.map((m) => [(m as { id: number }).id, "result" in m ? "result" : "error"]);
  assertEquals(answers.sort(), [
    [1, "result"],
    [2, "result"],
    [3, "error"],
  ]);
  // A request of ours is answered by the client: the answer goes through the SDK's router to its waiter.
  const roots = server.listRoots();
  await new Promise((resolve) => setTimeout(resolve, 0));
  const asked = transport.sent.at(-1) as { id: number; method: string };
  assertEquals(asked.method, "roots/list");
  deliver({ jsonrpc: "2.0", id: asked.id, result: { roots: [{ uri: "file:///w" }] } });
  assertEquals((await roots).roots, [{ uri: "file:///w" }]);
  await server.close();
});

Deno.test("routeByShape refuses a transport the server is not connected to, and an SDK without the handlers", async () => {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  const unconnected = assertThrows(() => routeByShape(server, new MemoryTransport())) as Error;
  assert(unconnected.message.includes("_onrequest"), unconnected.message);
  const transport = new MemoryTransport();
  await server.connect(transport);
  const withoutHandlers = Object.create(server, { _onrequest: { value: undefined } }) as Server;
  const old = assertThrows(() => routeByShape(withoutHandlers, transport)) as Error;
  assert(old.message.includes("update src/sdk/route_by_shape.ts"), old.message);
  await server.close();
});
