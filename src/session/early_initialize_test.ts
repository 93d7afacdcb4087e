import { assert, assertEquals } from "../../testing/assert.ts";
import { JSONRPCMessageSchema, ListToolsRequestSchema } from "../sdk/mod.ts";
import { answerInitializeEarly, plainToolsList } from "./early_initialize.ts";
import { initializeResult, responseLine } from "./initialize.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "c", version: "1" } },
});

/**
 * Runs the early answer over these input chunks, each there at once (with `tools`: a tools listing too, `late`
 * the pull from which it is never in time); returns what it wrote, its answer ids, the input it passes on and how
 * many chunks it had pulled when it gave the input on.
 */
async function early(chunks: string[], options: { tools?: boolean; late?: number; serverReady?: Promise<void> } = {}) {
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
  const listing = options.tools
    ? {
      tools: () => TOOLS,
      readyWithin: () => Promise.resolve(options.late === undefined || pulls < options.late),
      serverReady: options.serverReady,
    }
    : {};
  const start = await answerInitializeEarly(input, output, { instructions: "hello", ...listing });
  const pulledBefore = pulls;
  let passedOn = "";
  for await (const chunk of start.input) passedOn += decoder.decode(chunk, { stream: true });
  return { written: written.join(""), answered: start.answered, passedOn, pulledBefore };
}

/** {@linkcode early} with a tools listing. */
const earlyWithTools = (chunks: string[], options: { late?: number; serverReady?: Promise<void> } = {}) =>
  early(chunks, { ...options, tools: true });

Deno.test("early initialize: a plain initialize is answered at once, and the whole input still reaches the server", async () => {
  const result = await early([
    INITIALIZE.slice(0, 20),
    `${INITIALIZE.slice(20)}\n{"jsonrpc":"2.0",`,
    '"id":8,"method":"ping"}\n',
  ]);
  const expected = decoder.decode(responseLine(7, initializeResult("2025-06-18", "hello")));
  assertEquals(result.written, expected);
  assertEquals(result.answered, [7]);
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
    assertEquals([result.written, result.answered, result.passedOn], ["", [], chunks.join("")]);
  }
});

Deno.test("early initialize: a CRLF line is answered like the transport would parse it", async () => {
  const result = await early([`${INITIALIZE}\r\n`]);
  assertEquals([result.answered, result.passedOn], [[7], `${INITIALIZE}\r\n`]);
});

const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const LIST = '{"jsonrpc":"2.0","id":8,"method":"tools/list"}';
const TOOLS = [{ name: "t" }];

const initializeAnswer = () => decoder.decode(responseLine(7, initializeResult("2025-06-18", "hello")));

Deno.test("early tools/list: the tools/list after the initialized notification is answered too, and still passed on", async () => {
  const chunks = [`${INITIALIZE}\n`, `${INITIALIZED}\n`, `${LIST.slice(0, 10)}`, `${LIST.slice(10)}\r\n`];
  const result = await earlyWithTools(chunks);
  assertEquals(result.answered, [7, 8]);
  assertEquals(result.written, initializeAnswer() + `{"result":{"tools":[{"name":"t"}]},"jsonrpc":"2.0","id":8}\n`);
  assertEquals(result.passedOn, chunks.join(""));
  // In one chunk with the initialize, or with params {}, alike.
  const together = await earlyWithTools([`${INITIALIZE}\n${INITIALIZED}\n\n${LIST.replace("}", ',"params":{}}')}\n`]);
  assertEquals(together.answered, [7, 8]);
});

Deno.test("early tools/list: anything but the notification first, a tools/list with params, or one late is the server's", async () => {
  const ping = '{"jsonrpc":"2.0","id":9,"method":"ping"}';
  for (
    const chunks of [
      [`${INITIALIZE}\n`, `${ping}\n`, `${LIST}\n`],
      [`${INITIALIZE}\n`, `${LIST.replace("}", ',"params":{"cursor":"c"}}')}\n`],
      [`${INITIALIZE}\n`, `${LIST.replace("}", ',"params":{"_meta":{"progressToken":1}}}')}\n`],
      [`${INITIALIZE}\n`, `${LIST.replace('"id":8', '"id":null')}\n`],
      [`${INITIALIZE}\n`, `${INITIALIZED.replace("}", ',"id":3}')}\n`, `${LIST}\n`],
      [`${INITIALIZE}\n`, "not json\n", `${LIST}\n`],
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}\n', `${INITIALIZE}\n`, `${LIST}\n`],
    ]
  ) {
    const result = await earlyWithTools([...chunks]);
    const initialized = chunks[0] === `${INITIALIZE}\n`;
    assertEquals(result.answered, initialized ? [7] : [], chunks.join(""));
    assertEquals(result.written, initialized ? initializeAnswer() : "");
    assertEquals(result.passedOn, chunks.join(""));
  }
  const late = await earlyWithTools([`${INITIALIZE}\n`, `${INITIALIZED}\n`, `${LIST}\n`], { late: 2 });
  assertEquals([late.answered, late.passedOn], [[7], `${INITIALIZE}\n${INITIALIZED}\n${LIST}\n`]);
  const loaded = await earlyWithTools([`${INITIALIZE}\n`, `${LIST}\n`], { serverReady: Promise.resolve() });
  assertEquals(loaded.answered, [7]);
});

Deno.test("plainToolsList: whatever it accepts, the transport's and the SDK's schemas accept too", () => {
  const values = [undefined, null, true, 0, 1.5, -1, 2 ** 53, "", "x", [], {}, { cursor: "c" }, { _meta: {} }];
  let accepted = 0;
  for (const id of values) {
    for (const params of values) {
      for (const extra of [{}, { extra: 1 }, { jsonrpc: "1.0" }, { method: "tools/call" }]) {
        const message = {
          jsonrpc: "2.0",
          id,
          method: "tools/list",
          ...(params === undefined ? {} : { params }),
          ...extra,
        };
        const plain = plainToolsList(message);
        if (plain === null) continue;
        accepted++;
        assertEquals(plain, id);
        assert(JSONRPCMessageSchema.safeParse(message).success, JSON.stringify(message));
        assert(ListToolsRequestSchema.safeParse(message).success, JSON.stringify(message));
      }
    }
  }
  assert(accepted >= 8, `${accepted}`);
});
