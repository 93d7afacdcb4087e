import { assertEquals } from "../testing/assert.ts";
import { replayBytes } from "./handoff.ts";

Deno.test("replayBytes: each waiting call as a JSON-RPC line, then the partial line as it was read", () => {
  const calls = [
    { id: 3, request: { method: "tools/call", params: { name: "read_file", arguments: { path: "a" } } } },
    { id: "x", request: { method: "tools/call", params: { name: "server_info", arguments: {} } } },
  ];
  const partial = new Uint8Array([0x7b, 0x22, 0xff]);
  const bytes = replayBytes(calls, partial);
  const lines = new TextDecoder().decode(bytes.subarray(0, bytes.length - partial.length)).split("\n");
  assertEquals(lines.map((line) => line === "" ? null : JSON.parse(line)), [
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_file", arguments: { path: "a" } } },
    { jsonrpc: "2.0", id: "x", method: "tools/call", params: { name: "server_info", arguments: {} } },
    null,
  ]);
  assertEquals(bytes.subarray(bytes.length - partial.length), partial);
});
