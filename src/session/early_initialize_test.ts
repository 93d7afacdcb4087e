import { assertEquals } from "../testing/assert.ts";
import { answerInitializeEarly } from "./early_initialize.ts";
import { initializeResponse } from "./initialize.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "c", version: "1" } },
});

/** Runs the early answer over these input chunks; returns what it wrote, its answer id and the input it passes on. */
async function early(chunks: string[]) {
  let pulls = 0;
  const input = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[pulls++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
  }, { highWaterMark: 0 });
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(decoder.decode(chunk)) });
  const start = await answerInitializeEarly(input, output, "hello");
  const pulledBefore = pulls;
  let passedOn = "";
  for await (const chunk of start.input) passedOn += decoder.decode(chunk, { stream: true });
  return { written: written.join(""), answered: start.answered, passedOn, pulledBefore };
}

Deno.test("early initialize: a plain initialize is answered at once, and the whole input still reaches the server", async () => {
  const result = await early([
    INITIALIZE.slice(0, 20),
    `${INITIALIZE.slice(20)}\n{"jsonrpc":"2.0",`,
    '"id":8,"method":"ping"}\n',
  ]);
  const expected = decoder.decode(initializeResponse({ id: 7, protocolVersion: "2025-06-18" }, "hello"));
  assertEquals(result.written, expected);
  assertEquals(result.answered, 7);
  assertEquals(result.passedOn, `${INITIALIZE}\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n`);
  // It reads no further than the chunk that ends the first line.
  assertEquals(result.pulledBefore, 2);
});

Deno.test("early initialize: anything else is left to the server, byte for byte", async () => {
  for (
    const chunks of [
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'],
      [INITIALIZE.replace('"capabilities":{', '"_meta":{},"capabilities":{') + "\n"],
      ["not json\n", INITIALIZE + "\n"],
      [INITIALIZE],
      [],
    ]
  ) {
    const result = await early([...chunks]);
    assertEquals([result.written, result.answered, result.passedOn], ["", null, chunks.join("")]);
  }
});

Deno.test("early initialize: a CRLF line is answered like the transport would parse it", async () => {
  const result = await early([`${INITIALIZE}\r\n`]);
  assertEquals([result.answered, result.passedOn], [7, `${INITIALIZE}\r\n`]);
});
