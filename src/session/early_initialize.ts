/**
 * Answers a stdio client's `initialize` from the first line of its input
 * while the rest of the server is still loading (src/serve.ts), so the
 * client hears back in tens of milliseconds rather than after the whole
 * module graph (about 200 ms). The line is not consumed: the transport
 * reads the input again from its first byte, so the MCP server handles
 * that initialize itself (it records the client's capabilities for roots
 * and elicitation as always) and only its answer, already sent, is dropped
 * (LineTransport.skipAnswer). A first line that is not a plain initialize
 * (./initialize.ts) is left to the server, which answers it once loaded.
 *
 * @example
 * ```ts
 * import { FdInput } from "../transport/fd_input.ts";
 * import { LineTransport } from "../transport/stdio.ts";
 *
 * const input = new FdInput(0);
 * const early = await answerInitializeEarly(input.readable, Deno.stdout.writable, "workcell serves /repo.");
 * const transport = new LineTransport(early.input, Deno.stdout.writable);
 * if (early.answered !== null) transport.skipAnswer(early.answered);
 * ```
 */
import { initializeResponse, plainInitialize } from "./initialize.ts";
import { MAX_MESSAGE_BYTES } from "../transport/message_size.ts";

const NEWLINE = 0x0a;

/** What the transport starts from. */
export interface EarlyStart {
  /** The id of the initialize answered here, or null when the first line was left to the server. */
  answered: string | number | null;
  /** The whole input again: the bytes read here, then the rest, read on demand. */
  input: ReadableStream<Uint8Array>;
}

/**
 * Reads `input` up to the end of its first line (or its end, or {@linkcode MAX_MESSAGE_BYTES}) and, when that
 * line is a plain initialize, writes the answer to `output`, with `instructions`.
 */
export async function answerInitializeEarly(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  instructions: string,
): Promise<EarlyStart> {
  const reader = input.getReader();
  const head: Uint8Array[] = [];
  let bytes = 0;
  let line: string | null = null;
  const decoder = new TextDecoder();
  let text = "";
  while (line === null && bytes <= MAX_MESSAGE_BYTES) {
    const { value, done } = await reader.read();
    if (done) break;
    head.push(value);
    bytes += value.length;
    const newline = value.indexOf(NEWLINE);
    text += decoder.decode(newline < 0 ? value : value.subarray(0, newline), { stream: newline < 0 });
    if (newline >= 0) line = text;
  }
  reader.releaseLock();
  const request = line === null ? null : plainInitialize(parseLine(line));
  if (request) {
    const writer = output.getWriter();
    try {
      await writer.write(initializeResponse(request, instructions));
    } finally {
      writer.releaseLock();
    }
  }
  return { answered: request?.id ?? null, input: prepend(head, input) };
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
