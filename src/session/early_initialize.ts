/**
 * Answers a stdio client's `initialize` from the first line of its input
 * while the rest of the server is still loading (src/serve.ts), so the
 * client hears back in tens of milliseconds rather than after the whole
 * module graph (about 200 ms); then, when the client's `tools/list` follows
 * at once (after its `notifications/initialized`, as real clients send
 * them), answers that too, from the stored listing (src/catalog_listing.ts:
 * no zod, no tool module). The lines are not consumed: the transport reads
 * the input again from its first byte, so the MCP server handles that
 * initialize and tools/list itself (it records the client's capabilities
 * for roots and elicitation as always) and only its answers, already sent,
 * are dropped (LineTransport.skipAnswer). A first line that is not a plain
 * initialize (./initialize.ts) is left to the server, which answers it once
 * loaded; so is everything after the first line that is neither the
 * notification nor a plain tools/list, and a tools/list that does not come
 * within {@linkcode EARLY_TOOLS_LIST_WAIT_MS}.
 *
 * @example
 * ```ts
 * import { FdInput } from "../transport/fd_input.ts";
 * import { LineTransport } from "../transport/stdio.ts";
 * import { listedTools } from "../catalog_listing.ts";
 *
 * const input = new FdInput(0);
 * const early = await answerInitializeEarly(input.readable, Deno.stdout.writable, {
 *   instructions: "workcell serves /repo.",
 *   tools: () => listedTools({ fakeReadonlyAnnotations: false, maxResultChars: 48_000, viewImageEnabled: true }),
 *   readyWithin: (ms) => input.readyWithin(ms),
 * });
 * const transport = new LineTransport(early.input, Deno.stdout.writable);
 * for (const id of early.answered) transport.skipAnswer(id);
 * ```
 */
import { initializeResponse, plainInitialize } from "./initialize.ts";
import { MAX_MESSAGE_BYTES } from "../transport/message_size.ts";

/**
 * How long after its initialize answer the early answer waits for the client's tools/list before the server
 * loads (which holds the thread for ~150 ms, answering nothing). Clients send it as soon as initialize is
 * answered, within a millisecond or two; a client that does not only has its first call answered this much later.
 */
export const EARLY_TOOLS_LIST_WAIT_MS = 25;

/** What the transport starts from. */
export interface EarlyStart {
  /** The ids of the requests answered here (the initialize, then maybe a tools/list); empty when none was. */
  answered: (string | number)[];
  /** The whole input again: the bytes read here, then the rest, read on demand. */
  input: ReadableStream<Uint8Array>;
}

/** What the early answers are made of. */
export interface EarlyOptions {
  /** The initialize result's instructions. */
  instructions: string;
  /** The tools/list result's tools; without it only initialize is answered. */
  tools?: () => unknown[];
  /** Whether input is there within `ms` (nothing read); without it, no tools/list is waited for. */
  readyWithin?: (ms: number) => Promise<boolean>;
  /** Resolves when the server can answer for itself: the wait for a tools/list ends then. */
  serverReady?: Promise<void>;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const onlyKeys = (value: Json, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));

/**
 * The id of `message` when it is a tools/list that the transport's JSON-RPC schema and the SDK's
 * ListToolsRequestSchema certainly accept and whose answer cannot depend on its params (none, or `{}`: no
 * cursor, no `_meta`); null otherwise.
 *
 * @example
 * ```ts
 * plainToolsList({ jsonrpc: "2.0", id: 2, method: "tools/list" }); // 2
 * plainToolsList({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "x" } }); // null
 * ```
 */
export function plainToolsList(message: unknown): string | number | null {
  if (!isRecord(message) || !onlyKeys(message, ["jsonrpc", "id", "method", "params"])) return null;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== "tools/list") return null;
  if (!(typeof id === "string" || Number.isSafeInteger(id))) return null;
  if (params !== undefined && !(isRecord(params) && Object.keys(params).length === 0)) return null;
  return id as string | number;
}

/** Whether `message` is the client's notifications/initialized (which gets no answer). */
function isInitialized(message: unknown): boolean {
  return isRecord(message) && onlyKeys(message, ["jsonrpc", "method", "params"]) && message.jsonrpc === "2.0" &&
    message.method === "notifications/initialized" && (message.params === undefined || isRecord(message.params));
}

/** The JSON-RPC response line the stdio transport would write for a tools/list result (key order included). */
function toolsListResponse(id: string | number, tools: unknown[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ result: { tools }, jsonrpc: "2.0", id }) + "\n");
}

/** The complete lines of the input read so far, in order, and the bytes read. */
class LineReader {
  readonly head: Uint8Array[] = [];
  bytes = 0;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #text = "";
  #ended = false;

  constructor(input: ReadableStream<Uint8Array>) {
    this.#reader = input.getReader();
  }

  /** The next complete line without its newline, or null when none is read yet. */
  take(): string | null {
    const newline = this.#text.indexOf("\n");
    if (newline < 0) return null;
    const line = this.#text.slice(0, newline);
    this.#text = this.#text.slice(newline + 1);
    return line;
  }

  /** Reads one more chunk; false at the end of input or beyond {@linkcode MAX_MESSAGE_BYTES}. */
  async more(): Promise<boolean> {
    if (this.#ended || this.bytes > MAX_MESSAGE_BYTES) return false;
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#ended = true;
      return false;
    }
    this.head.push(value);
    this.bytes += value.length;
    this.#text += this.#decoder.decode(value, { stream: true });
    return true;
  }

  release(): void {
    this.#reader.releaseLock();
  }
}

/** Writes `bytes` to `output` (its writer taken for this one write). */
async function writeTo(output: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = output.getWriter();
  try {
    await writer.write(bytes);
  } finally {
    writer.releaseLock();
  }
}

/**
 * Reads `input` up to the end of its first line (or its end, or {@linkcode MAX_MESSAGE_BYTES}) and, when that
 * line is a plain initialize, writes the answer to `output`, with the options' instructions; then, given the
 * options' `tools` and `readyWithin`, waits up to {@linkcode EARLY_TOOLS_LIST_WAIT_MS} for a plain tools/list
 * (after the initialized notification) and answers it.
 */
export async function answerInitializeEarly(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: EarlyOptions,
): Promise<EarlyStart> {
  const lines = new LineReader(input);
  const answered: (string | number)[] = [];
  try {
    let first = lines.take();
    while (first === null && await lines.more()) first = lines.take();
    const request = first === null ? null : plainInitialize(parseLine(first));
    if (request) {
      await writeTo(output, initializeResponse(request, options.instructions));
      answered.push(request.id);
      const listed = await answerToolsList(lines, output, options);
      if (listed !== null) answered.push(listed);
    }
  } finally {
    lines.release();
  }
  return { answered, input: prepend(lines.head, input) };
}

/**
 * After the initialize answer: the lines up to a plain tools/list, answered, when they come in time and are
 * only the initialized notification (or blank); the tools/list's id, or null when it was left to the server.
 */
async function answerToolsList(
  lines: LineReader,
  output: WritableStream<Uint8Array>,
  options: EarlyOptions,
): Promise<string | number | null> {
  const { tools, readyWithin } = options;
  if (!tools || !readyWithin) return null;
  let serverReady = false;
  options.serverReady?.then(() => serverReady = true);
  const deadline = performance.now() + EARLY_TOOLS_LIST_WAIT_MS;
  for (;;) {
    const line = lines.take();
    if (line === null) {
      const left = deadline - performance.now();
      if (serverReady || left <= 0) return null;
      const waits = [readyWithin(left)];
      if (options.serverReady) waits.push(options.serverReady.then(() => false));
      const ready = await Promise.race(waits);
      if (!ready || serverReady || !(await lines.more())) return null;
      continue;
    }
    if (line.replace(/\r$/, "").trim() === "") continue;
    const message = parseLine(line);
    if (isInitialized(message)) continue;
    const id = plainToolsList(message);
    if (id === null) return null;
    await writeTo(output, toolsListResponse(id, tools()));
    return id;
  }
}

/** The line as the transport parses it (CR stripped), or undefined when it is no JSON. */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line.replace(/\r$/, ""));
  } catch {
    return undefined;
  }
}

/** The chunks of `head`, then those of `rest`, each pulled only when asked for (the reader pauses at a known byte). */
function prepend(head: Uint8Array[], rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  const pending = [...head];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const first = pending.shift();
      if (first) return controller.enqueue(first);
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
