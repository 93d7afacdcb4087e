/**
 * Protocol fuzzer over raw stdio (no SDK client): malformed JSON, random
 * bytes, invalid envelopes, deeply nested and huge values, wrong types for
 * every property of every tool. The server must never crash or write
 * anything but JSON to stdout, must answer every well-formed request, must
 * refuse every wrongly typed argument with INVALID_ARGUMENT naming it, and
 * must still answer server_info at the end.
 *
 * Then random arguments of every shape for every tool (more under
 * RELIABILITY_FULL=1, see tests/reliability/): each answered, every error
 * with a registered code.
 *
 * Deterministic: the pseudo-random bytes come from a fixed seed
 * (FUZZ_SEED overrides it).
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type RawMessage, type RawServer, startRawServer } from "./harness.ts";
import { scale } from "../testing/scale.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261202);

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * Whether `schema` might accept `value`, judged by JSON type, enum and const
 * only (bounds, items and lengths are ignored): so `!accepts` means the value
 * is certainly invalid.
 */
function accepts(schema: JsonSchema, value: unknown): boolean {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.some((member) => accepts(member, value));
  if (schema.enum) return schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value));
  if ("const" in schema) return JSON.stringify(schema.const) === JSON.stringify(value);
  if (schema.type === undefined) return true;
  const types = ([] as string[]).concat(schema.type);
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** One value of each JSON shape, for the wrong-type sweep. */
const SHAPES: unknown[] = [42, 1.5, -1, "x", "", true, false, null, [], ["x"], [1], {}, { a: 1 }];

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const HUGE = "A".repeat(1024 * 1024);
/** Strings of the right type but extreme content, to be answered somehow (any result, any error). */
const STRINGS = [HUGE, "\u0000", "x\u0000y", "\ud800", "🙂".repeat(5000), "../".repeat(2000), " ", "\n\r\t", "%s%n"];

/** Arguments holding only the required properties, each with a value of an accepted shape. */
function requiredBase(schema: JsonSchema): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties![name];
    base[name] = [...(property.enum ?? []), ...SHAPES].find((value) => accepts(property, value));
  }
  return base;
}

function randomLine(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length + 1);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  bytes[length] = 0x0a;
  return bytes;
}

async function alive(server: RawServer, label: string): Promise<void> {
  const pong = await server.request("ping", undefined, { timeoutMs: 15000 });
  assertEquals(pong.result, {}, `ping after ${label}`);
  assert(server.alive(), `server exited after ${label}: ${server.stderr().slice(-2000)}`);
}

function isAnsweredWithError(message: RawMessage): boolean {
  return message.error !== undefined || message.result?.isError === true;
}

Deno.test("fuzz: the server survives malformed input and answers every well-formed request", async () => {
  await using server = await initialized();
  try {
    await fuzz(server);
  } catch (error) {
    const state = `seed ${SEED}; server alive: ${server.alive()}; stderr tail:\n${server.stderr().slice(-3000)}`;
    throw new Error(`${(error as Error).message}\n${state}`, { cause: error });
  }
});

async function fuzz(server: RawServer): Promise<void> {
  const random = prng(SEED);
  const tools = (await server.request("tools/list")).result.tools as { name: string; inputSchema: JsonSchema }[];
  assertEquals(tools.length, 18);

  // Malformed JSON, invalid envelopes and random bytes: dropped or answered, never fatal.
  const malformed = [
    "{",
    "}",
    "not json",
    "[]",
    "[1,2,3]",
    "null",
    "42",
    '"text"',
    "{}",
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","id":"g1"}',
    '{"jsonrpc":"1.0","id":"g2","method":"ping"}',
    '{"id":"g3","method":"ping"}',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
    '{"jsonrpc":"2.0","id":"g4","method":42}',
    // Valid ids with envelopes the SDK rejects: not answered today (see KNOWN GAPS below).
    '{"jsonrpc":"2.0","id":"g5","method":"tools/call","params":"x"}',
    '{"jsonrpc":"2.0","id":"g6","method":"tools/call","params":[1,2]}',
    '{"jsonrpc":"2.0","id":"g9","method":"tools/call","params":{"name":"server_info","_meta":{"progressToken":{}}}}',
    '{"jsonrpc":"2.0","id":"g7","method":"ping"',
    '{"jsonrpc":"2.0","result":{},"id":"nobody-asked"}',
    '{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":"nobody-asked"}',
    '[{"jsonrpc":"2.0","id":"g8","method":"ping"}]',
    "\u0000\u0001\u0002",
    "",
    "   ",
    "\r",
    "[".repeat(100_000) + "]".repeat(100_000),
    '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000),
    "[".repeat(100_000),
  ];
  for (const line of malformed) await server.write(line + "\n");
  await server.write(new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x0a]));
  for (let i = 0; i < 60; i++) await server.write(randomLine(random, 1 + Math.floor(random() * 4096)));
  await alive(server, "malformed lines and random bytes");

  // Well-formed requests with bad methods or params: each answered with an error.
  const mustFail: [string, unknown][] = [
    ["no/such/method", {}],
    ["tools/call", {}],
    ["tools/call", { name: 42 }],
    ["tools/call", { name: null }],
    ["tools/call", { name: "read_file", arguments: "x" }],
    ["tools/call", { name: "read_file", arguments: [] }],
    ["tools/call", { name: "read_file", arguments: 7 }],
    ["tools/call", { name: "\u0000" }],
    ["tools/call", { name: "x".repeat(100_000) }],
    ["tools/call", { name: "read_file", arguments: nested(5000, 1) }],
    ["tools/call", { name: "read_file", arguments: { path: nested(5000, "x") } }],
    ["resources/read", { uri: "file:///etc/passwd" }],
    ["prompts/get", { name: "x" }],
    ["logging/setLevel", { level: "nope" }],
  ];
  for (const [method, params] of mustFail) {
    const answer = await server.request(method, params);
    assert(isAnsweredWithError(answer), `${method} ${JSON.stringify(params).slice(0, 100)}: ${JSON.stringify(answer)}`);
  }
  // Non-object arguments are invalid params (the SDK's tools/call check), never an internal error.
  for (const args of ["x", [], 7, null, true]) {
    const answer = await server.request("tools/call", { name: "read_file", arguments: args });
    assertEquals(answer.error?.code, -32602, `arguments ${JSON.stringify(args)}: ${JSON.stringify(answer)}`);
  }
  // Odd but legal: answered somehow.
  for (
    const [method, params, id] of [
      ["ping", { extra: nested(5000, [1]) }, "string-id"],
      ["tools/list", { cursor: "garbage" }, 0],
      ["tools/list", {}, -1],
      [
        "tools/call",
        { name: "server_info", arguments: {}, _meta: { progressToken: "p", deep: nested(2000, 1) } },
        2 ** 52,
      ],
    ] as [string, unknown, string | number][]
  ) {
    const answer = await server.request(method, params, { id });
    assertEquals(answer.id, id);
  }
  await alive(server, "bad params");

  // Every tool: each property with values of a wrong JSON type is INVALID_ARGUMENT naming it.
  let wrongTypeCalls = 0;
  for (const tool of tools) {
    const base = requiredBase(tool.inputSchema);
    for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      for (const value of [...SHAPES, nested(3000, 1)].filter((candidate) => !accepts(schema, candidate))) {
        const answer = await server.request("tools/call", { name: tool.name, arguments: { ...base, [name]: value } });
        const error = answer.result?.structuredContent?.error;
        const label = `${tool.name}.${name} = ${JSON.stringify(value).slice(0, 40)}`;
        assertEquals(error?.code, "INVALID_ARGUMENT", `${label}: ${JSON.stringify(answer).slice(0, 300)}`);
        assert(
          error.details.fields.some((field: string) => field === name || field.startsWith(`${name}.`)),
          `${label}: fields ${JSON.stringify(error.details.fields)}`,
        );
        wrongTypeCalls++;
      }
    }
    const unknown: Record<string, unknown>[] = [{ bogus: 1 }, { constructor: 1 }, { ["x".repeat(10_000)]: HUGE }, {
      deep: nested(5000, 1),
    }];
    for (const extra of unknown) {
      const answer = await server.request("tools/call", { name: tool.name, arguments: { ...base, ...extra } });
      assertEquals(answer.result?.structuredContent?.error?.code, "INVALID_ARGUMENT", `${tool.name} unknown property`);
    }
    // A computed key makes an own property named __proto__, which JSON carries as such.
    const proto = await server.request("tools/call", {
      name: tool.name,
      arguments: { ...base, ["__proto__"]: { polluted: true } },
    });
    assert(proto.result !== undefined || proto.error !== undefined, `${tool.name} __proto__`);
  }
  assert(wrongTypeCalls > 100, `only ${wrongTypeCalls} wrong-type calls`);
  await alive(server, "the wrong-type sweep");

  // Right type, extreme content: any answer will do, as long as there is one and the server lives.
  // Commands are left out: a right-typed cmd would really run.
  for (const tool of tools.filter((candidate) => !["exec_command", "write_stdin"].includes(candidate.name))) {
    const base = requiredBase(tool.inputSchema);
    for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      if (!accepts(schema, "x")) continue;
      for (const value of STRINGS) {
        const answer = await server.request("tools/call", { name: tool.name, arguments: { ...base, [name]: value } });
        assert(answer.result !== undefined || answer.error !== undefined, `${tool.name}.${name}`);
      }
    }
  }
  await alive(server, "extreme strings");

  // Pipelined burst: 300 calls sent back to back without waiting, then 300 pings in one write; every call answered.
  const burst: Promise<RawMessage>[] = [];
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const id = `burst-${i}`;
    burst.push(server.request("tools/call", { name: "server_info", arguments: { n: i } }, { id, timeoutMs: 20000 }));
    lines.push(JSON.stringify({ jsonrpc: "2.0", id: `${id}-twin`, method: "ping" }));
  }
  await server.write(lines.join("\n") + "\n");
  assert((await Promise.all(burst)).every(isAnsweredWithError));

  const info = await server.request("tools/call", { name: "server_info", arguments: {} });
  assertEquals(info.result?.isError, false, JSON.stringify(info).slice(0, 500));
  assertEquals(server.nonJsonOutput(), []);
  assert(server.alive());
}

/** Starts a raw server and completes the initialize handshake. */
async function initialized(): Promise<RawServer> {
  const server = await startRawServer();
  const init = await server.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "fuzz", version: "1" },
  });
  assert(init.result?.protocolVersion, JSON.stringify(init));
  await server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  return server;
}

// Two gaps this fuzzer found in the SDK's StdioServerTransport, fixed by src/transport/stdio.ts:
// 1. it silently dropped each line failing its message schema, so a request with a valid id whose params
//    are not an object, or whose _meta or progressToken has the wrong type, was never answered;
// 2. one line over its 10 MiB read buffer closed the transport, ending the session.
Deno.test({
  name: "fuzz: a request with an id but an envelope the SDK rejects is answered with an error",
  fn: async () => {
    await using server = await initialized();
    const cases: unknown[] = [
      "x",
      null,
      [1, 2],
      { name: "server_info", arguments: {}, _meta: 5 },
      { name: "server_info", arguments: {}, _meta: { progressToken: {} } },
    ];
    for (const params of cases) {
      const answer = await server.request("tools/call", params, { timeoutMs: 3000 });
      assert(isAnsweredWithError(answer), JSON.stringify(params));
    }
  },
});

Deno.test({
  name: "fuzz: a line over 10 MiB is answered and the server keeps serving",
  fn: async () => {
    await using server = await initialized();
    const chunk = "a".repeat(1024 * 1024);
    for (let i = 0; i < 11; i++) await server.write(chunk);
    await server.write("\n");
    await alive(server, "an 11 MiB line");
  },
});

/** Random arguments per tool under the reliability suite's scale: 20 each normally, 200 under RELIABILITY_FULL=1. */
const RANDOM_CALLS_PER_TOOL = scale(20, 200);

/** A random JSON value: any shape, random bytes decoded lossily, huge or deeply nested now and then. */
function randomValue(random: () => number, depth = 0): unknown {
  const pick = Math.floor(random() * 10);
  if (depth > 3 && pick >= 7) return null;
  switch (pick) {
    case 0:
      return Math.floor((random() - 0.5) * 2 ** 40);
    case 1:
      return random() < 0.5;
    case 2:
      return new TextDecoder().decode(randomLine(random, Math.floor(random() * 64)));
    case 3:
      return random() < 0.1 ? HUGE : STRINGS[Math.floor(random() * STRINGS.length)];
    case 4:
      return random() < 0.1 ? nested(3000, [random()]) : null;
    case 5:
      return random() - 0.5;
    case 6:
      return "../".repeat(Math.floor(random() * 50)) + "etc/passwd";
    case 7:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 3) }, (_, i) => [`k${i}`, randomValue(random, depth + 1)]),
      );
  }
}

Deno.test({
  name: "fuzz: random arguments for every tool are each answered, errors carry a registered code",
  fn: async () => {
    const codes = new Set(Object.keys(JSON.parse(
      await Deno.readTextFile(new URL("../schemas/error-codes.json", import.meta.url)),
    )));
    await using server = await initialized();
    const random = prng(SEED + 1);
    const tools = (await server.request("tools/list")).result.tools as { name: string; inputSchema: JsonSchema }[];
    for (const tool of tools) {
      const names = Object.keys(tool.inputSchema.properties ?? {});
      for (let i = 0; i < RANDOM_CALLS_PER_TOOL; i++) {
        const args: Record<string, unknown> = {};
        for (const name of names) if (random() < 0.6) args[name] = randomValue(random);
        // A right-typed random cmd would really run: exec_command only ever gets a non-string one.
        if (tool.name === "exec_command" && typeof args.cmd === "string") args.cmd = 42;
        if (random() < 0.1) args[`bogus${i}`] = randomValue(random);
        const answer = await server.request("tools/call", { name: tool.name, arguments: args }, { timeoutMs: 30000 });
        const label = `${tool.name} ${JSON.stringify(args).slice(0, 200)}`;
        assert(answer.result !== undefined || answer.error !== undefined, label);
        const code = answer.result?.structuredContent?.error?.code;
        if (answer.result?.isError) assert(codes.has(code), `${label}: unregistered code ${code}`);
      }
    }
    await alive(server, "random arguments");
    assertEquals(server.nonJsonOutput(), []);
  },
});
