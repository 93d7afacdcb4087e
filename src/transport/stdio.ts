/**
 * JSON-RPC lines on stdio, replacing the SDK's StdioServerTransport, which silently drops lines failing its schema
 * and closes the session on one over 10 MiB; here a bad line with an id, or a long one, gets an error instead.
 */
import { type JSONRPCMessage, JSONRPCMessageSchema, type Transport } from "../sdk/mod.ts";
import { joinBytes } from "../text/join_bytes.ts";
import { MAX_MESSAGE_BYTES } from "./message_size.ts";

/** After stdin ends, how long requests already received may still take to be answered. */
export const DRAIN_GRACE_MS = 30_000;

/** JSON-RPC error codes used for lines that never reach the protocol layer. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const NEWLINE = 0x0a;

/** A JSON-RPC transport over one readable and one writable byte stream. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #input: ReadableStream<Uint8Array>;
  readonly #output: WritableStreamDefaultWriter<Uint8Array>;
  readonly #maxBytes: number;
  #writes: Promise<void> = Promise.resolve();
  #closed = false;
  /** Ids of requests received and not answered yet, so input ending does not cut their answers off. */
  readonly #inFlight = new Set<string | number>();
  #drained: (() => void) | null = null;
  /** The ids whose answers skipAnswer drops (each once). */
  readonly #answered = new Set<string | number>();
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  constructor(input: ReadableStream<Uint8Array>, output: WritableStream<Uint8Array>, maxBytes = MAX_MESSAGE_BYTES) {
    this.#input = input;
    this.#output = output.getWriter();
    this.#maxBytes = maxBytes;
  }

  start(): Promise<void> {
    void this.#read().catch((error) => this.onerror?.(error)).then(() => this.#drain()).finally(() => this.close());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (("result" in message || "error" in message) && message.id !== undefined && message.id !== null) {
      this.#inFlight.delete(message.id);
      if (this.#inFlight.size === 0) this.#drained?.();
      if (this.#answered.delete(message.id)) return Promise.resolve();
    }
    return this.#write(message);
  }

  /** Request `id` was answered before this transport started (src/session/early_initialize.ts): drop its answer. */
  skipAnswer(id: string | number): void {
    this.#answered.add(id);
  }

  unanswered(): ReadonlySet<string | number> {
    return this.#inFlight;
  }

  /** Waits until every request received has been answered, at most DRAIN_GRACE_MS. */
  async #drain(): Promise<void> {
    if (this.#inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#drained = resolve),
      new Promise<void>((resolve) => timer = setTimeout(resolve, DRAIN_GRACE_MS)),
    ]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writes.catch(() => {});
    this.onclose?.();
  }

  #write(message: unknown): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#writes = this.#writes.then(() => this.#output.write(bytes));
    return this.#writes;
  }

  #refuse(id: string | number | null, code: number, message: string): void {
    void this.#write({ jsonrpc: "2.0", id, error: { code, message } }).catch((error) => this.onerror?.(error));
  }

  /** Splits the input into lines, keeping at most maxBytes of a line; longer lines are skipped to their end. */
  async #read(): Promise<void> {
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let skipping = false;
    for await (const chunk of this.#input) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline < 0 ? chunk.length : newline;
        if (!skipping) {
          if (pendingBytes + (end - start) > this.#maxBytes) {
            skipping = true;
            pending = [];
            pendingBytes = 0;
          } else {
            pending.push(chunk.subarray(start, end));
            pendingBytes += end - start;
          }
        }
        if (newline < 0) break;
        if (skipping) {
          this.#refuse(null, INVALID_REQUEST, `message longer than ${this.#maxBytes} bytes refused`);
          skipping = false;
        } else this.#dispatch(joinBytes(pending));
        pending = [];
        pendingBytes = 0;
        start = newline + 1;
      }
    }
  }

  #dispatch(bytes: Uint8Array): void {
    const line = this.#decoder.decode(bytes).replace(/\r$/, "");
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#refuse(null, PARSE_ERROR, `parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      const message = parsed.data;
      if ("method" in message && "id" in message) this.#inFlight.add(message.id);
      this.onmessage?.(message);
      return;
    }
    // Answer what can be answered: a request with a usable id. Notifications and stray responses get nothing.
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id === "string" || typeof id === "number") {
      const issue = parsed.error.issues[0];
      this.#refuse(
        id,
        INVALID_REQUEST,
        `invalid request: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "bad envelope"}`,
      );
    } else if (Array.isArray(value)) {
      this.#refuse(null, INVALID_REQUEST, "invalid request: JSON-RPC batches are not supported");
    }
  }
}
