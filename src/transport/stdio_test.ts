import { assertEquals } from "../../testing/assert.ts";
import { LineTransport } from "./stdio.ts";

/** Feeds `input` through a transport and collects what it emits and answers. */
async function run(input: string[], maxBytes?: number, skip?: string | number) {
  const encoder = new TextEncoder();
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of input) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const written: string[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
  });
  const transport = new LineTransport(readable, writable, maxBytes);
  if (skip !== undefined) transport.skipAnswer(skip);
  const messages: unknown[] = [];
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = (message) => {
    messages.push(message);
    // Answer requests as the protocol layer would, so the end of input does not wait for them.
    if ("id" in message && "method" in message) void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
  };
  await transport.start();
  await closed;
  const lines = written.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return { messages, lines, answers: lines.filter((line) => "error" in line), unanswered: transport.unanswered() };
}

Deno.test("lines split across chunks and CRLF endings arrive as whole messages", async () => {
  const { messages, answers } = await run([
    '{"jsonrpc":"2.0","id":1,"me',
    'thod":"ping"}\r\n{"jsonrpc":"2.0",',
    '"id":2,"method":"ping"}\n',
  ]);
  assertEquals(messages, [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "ping" }]);
  assertEquals(answers, []);
});

Deno.test("bad JSON is a parse error; a bad envelope with an id is an invalid request for that id", async () => {
  const { messages, answers } = await run([
    "{nope\n",
    '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":"x"}\n',
    '{"jsonrpc":"2.0","method":"notifications/x","params":5}\n',
    '[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n',
    "\n   \n",
  ]);
  assertEquals(messages, []);
  assertEquals(answers.map((a) => [a.id, a.error.code]), [[null, -32700], ["a", -32600], [null, -32600]]);
});

Deno.test("a line over the bound is skipped to its end and refused; the next line still arrives", async () => {
  const { messages, answers } = await run([
    "x".repeat(600),
    "y".repeat(600),
    '\n{"jsonrpc":"2.0","id":9,"method":"ping"}\n',
  ], 1000);
  assertEquals(answers.map((a) => [a.id, a.error.code]), [[null, -32600]]);
  assertEquals(messages, [{ jsonrpc: "2.0", id: 9, method: "ping" }]);
});

Deno.test("when input ends, answers to requests already received are still written", async () => {
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":7,"method":"slow"}\n'));
      controller.close();
    },
  });
  const written: string[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
  });
  const transport = new LineTransport(readable, writable);
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = () => setTimeout(() => void transport.send({ jsonrpc: "2.0", id: 7, result: {} }), 50);
  await transport.start();
  await closed;
  assertEquals(JSON.parse(written.join("")), { jsonrpc: "2.0", id: 7, result: {} });
});

Deno.test("skipAnswer: the server still receives the request; only its answer is dropped, once", async () => {
  const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
  const { messages, lines, unanswered } = await run([ping(1) + ping(2)], undefined, 1);
  assertEquals(messages.length, 2);
  assertEquals(lines, [{ jsonrpc: "2.0", id: 2, result: {} }]);
  assertEquals(unanswered.size, 0);
});
