import { assert, assertEquals } from "../../testing/assert.ts";
import { parseArgs } from "../config.ts";
import { probeFacts } from "../services.ts";
import { openChoice, WorkspaceBinding } from "../session/binding.ts";
import { createMcpServer } from "../server.ts";
import { createHttpHandler } from "./serve.ts";
import { HttpSessions } from "./sessions.ts";
import { readJsonBody } from "./body.ts";

const ORIGIN = "http://127.0.0.1:8080";
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "unit", version: "1" } },
});

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}/mcp`, {
    method: "POST",
    headers: {
      host: "127.0.0.1:8080",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

async function handlerWith(limits: { maxSessions: number; evictIdleMs: number }) {
  const dir = await Deno.makeTempDir({ prefix: "workcell-serve-test-" });
  const parsed = parseArgs(["--http", "127.0.0.1:8080", "--http-no-auth"]);
  assert(parsed.kind === "run");
  const config = parsed.config;
  const facts = await probeFacts();
  const binding = new WorkspaceBinding();
  binding.settle(await openChoice({ dir, source: "flag" }, { config, facts, home: null }));
  const sessions = new HttpSessions(() => createMcpServer({ config, facts, binding }, "http"), limits);
  const handler = await createHttpHandler({ address: config.http!, token: null, config }, sessions);
  const cleanup = async () => {
    await sessions.closeAll();
    await binding.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { handler, sessions, cleanup };
}

async function open(handler: (request: Request) => Promise<Response>): Promise<Response> {
  const response = await handler(post(INIT));
  await response.body?.cancel();
  return response;
}

Deno.test("HttpSessions: a full table evicts the least recently used idle session, else answers 503", async () => {
  const evicting = await handlerWith({ maxSessions: 2, evictIdleMs: 0 });
  try {
    const first = (await open(evicting.handler)).headers.get("mcp-session-id")!;
    await open(evicting.handler);
    assertEquals((await open(evicting.handler)).status, 200);
    assertEquals(evicting.sessions.size, 2);
    const gone = await evicting.handler(post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { "mcp-session-id": first }));
    assertEquals(gone.status, 404);
  } finally {
    await evicting.cleanup();
  }
  const strict = await handlerWith({ maxSessions: 1, evictIdleMs: 60_000 });
  try {
    assertEquals((await open(strict.handler)).status, 200);
    const refused = await open(strict.handler);
    assertEquals(refused.status, 503);
    await strict.sessions.closeAll();
    assertEquals((await open(strict.handler)).status, 503, "no new sessions once shutting down");
  } finally {
    await strict.cleanup();
  }
});

Deno.test("readJsonBody: a streamed body is cut off past the bound; bad JSON is a parse error", async () => {
  const stream = (chunks: number) =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (chunks-- > 0) controller.enqueue(new Uint8Array(1024).fill(0x20));
        else controller.close();
      },
    });
  const big = new Request(`${ORIGIN}/mcp`, { method: "POST", body: stream(10) });
  const tooLarge = await readJsonBody(big, 4096);
  assert(tooLarge instanceof Response);
  assertEquals(tooLarge.status, 413);
  const bad = await readJsonBody(new Request(`${ORIGIN}/mcp`, { method: "POST", body: "{nope" }), 4096);
  assert(bad instanceof Response);
  assertEquals(bad.status, 400);
  assertEquals((await bad.json()).error.code, -32700);
  const good = await readJsonBody(new Request(`${ORIGIN}/mcp`, { method: "POST", body: '{"a":1}' }), 4096);
  assertEquals(good, { value: { a: 1 } });
});
