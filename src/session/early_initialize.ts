/**
 * Answers a stdio client's `initialize` and an immediate `tools/list` while the server still loads (src/serve.ts).
 * No input is consumed: the server handles both; its answers, already sent, are dropped (LineTransport.skipAnswer).
 */
import { initializeResult, isRecord, onlyKeys, plainInitialize, plainRequest, responseLine } from "./initialize.ts";
import { MAX_MESSAGE_BYTES } from "../transport/message_size.ts";

/** How long the early answer waits for tools/list before the server loads (blocking ~150 ms); clients take 1-2 ms. */
export const EARLY_TOOLS_LIST_WAIT_MS = 25;

/** What the transport starts from. */
export interface EarlyStart {
  /** The ids answered here (the initialize, then maybe a tools/list). */
  answered: (string | number)[];
  /** The whole input again: the bytes read here, then the rest, read on demand. */
  input: ReadableStream<Uint8Array>;
}

/** What the early answers are made of. */
export interface EarlyOptions {
  instructions: string;
  /** The tools/list result's tools; without it only initialize is answered. */
  tools?: () => unknown[];
  /** Whether input is there within `ms` (nothing read); without it, no tools/list is waited for. */
  readyWithin?: (ms: number) => Promise<boolean>;
  /** Resolves when the server can answer for itself: the wait for a tools/list ends then. */
  serverReady?: Promise<void>;
}

/**
 * The id of a tools/list the SDK surely accepts, whose answer no params could change (none, or `{}`); else null.
 * @example
 * ```ts
 * plainToolsList({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "x" } }); // null
 * ```
 */
export function plainToolsList(message: unknown): string | number | null {
  const request = plainRequest(message, "tools/list");
  if (request === null) return null;
  const { id, params } = request;
  return params === undefined || (isRecord(params) && Object.keys(params).length === 0) ? id : null;
}

function isInitialized(message: unknown): boolean {
  return isRecord(message) && onlyKeys(message, ["jsonrpc", "method", "params"]) && message.jsonrpc === "2.0" &&
    message.method === "notifications/initialized" && (message.params === undefined || isRecord(message.params));
}

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

  take(): string | null {
    const newline = this.#text.indexOf("\n");
    if (newline < 0) return null;
    const line = this.#text.slice(0, newline);
    this.#text = this.#text.slice(newline + 1);
    return line;
  }

  /** Reads one more chunk; false at the end of input or beyond MAX_MESSAGE_BYTES. */
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

/**
 * Answers a plain initialize on the first line of `input`, then a plain tools/list within EARLY_TOOLS_LIST_WAIT_MS.
 * @example
 * ```ts
 * import { FdInput } from "../transport/fd_input.ts";
 * await answerInitializeEarly(new FdInput(0).readable, Deno.stdout.writable, { instructions: "…" });
 * ```
 */
export async function answerInitializeEarly(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: EarlyOptions,
): Promise<EarlyStart> {
  const lines = new LineReader(input);
  const writer = output.getWriter();
  const answered: (string | number)[] = [];
  try {
    let first = lines.take();
    while (first === null && await lines.more()) first = lines.take();
    const request = first === null ? null : plainInitialize(parseLine(first));
    if (request) {
      await writer.write(responseLine(request.id, initializeResult(request.protocolVersion, options.instructions)));
      answered.push(request.id);
      const listed = await answerToolsList(lines, writer, options);
      if (listed !== null) answered.push(listed);
    }
  } finally {
    lines.release();
    writer.releaseLock();
  }
  return { answered, input: prepend(lines.head, input) };
}

/** The id of a plain tools/list answered in time (after only the initialized notification or blanks), or null. */
async function answerToolsList(
  lines: LineReader,
  writer: WritableStreamDefaultWriter<Uint8Array>,
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
    await writer.write(responseLine(id, { tools: tools() }));
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
