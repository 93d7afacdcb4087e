/**
 * stdin as a byte stream, read with poll(2) then read(2) through FFI: the
 * read itself runs on the JS thread once poll says data is there, so no
 * read is ever in flight on another thread (Deno's own stdin keeps one
 * pending on its blocking pool, and a byte it took could not be given
 * back). So reading can pause at a known byte: the hand-off to a new
 * process (src/session/handoff.ts) passes on exactly the bytes after the
 * last complete line, and nothing is lost.
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 * import { LineTransport } from "./stdio.ts";
 *
 * declare const server: Server;
 * const input = new FdInput(0);
 * await server.connect(new LineTransport(input.readable, Deno.stdout.writable));
 * ```
 */
import { ERRNO, errno, libc, POLL } from "../os/libc.ts";
import { MAX_MESSAGE_BYTES } from "./message_size.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** How long one poll waits before looking again (so a paused or finished reader never holds a call for long). */
const POLL_SLICE_MS = 1000;
/** Bytes read at once. */
const CHUNK_BYTES = 64 * 1024;
/** poll(2) failures in a row after which the input counts as ended (EINTR comes one at a time). */
const MAX_POLL_FAILURES = 100;
const NEWLINE = 0x0a;

/** A pausable reader of one fd. */
export class FdInput {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #fd: number;
  #paused: PromiseWithResolvers<void> | null = null;
  /** The bytes handed out after the last newline (the line the transport is in the middle of). */
  #tail: Uint8Array[] = [];
  #tailBytes = 0;

  /** Reads `fd`, after first handing out `prefix` (the bytes a previous process passed on). */
  constructor(fd: number, prefix: Uint8Array = new Uint8Array()) {
    this.#fd = fd;
    let pendingPrefix: Uint8Array | null = prefix.length > 0 ? prefix : null;
    this.readable = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (pendingPrefix) {
          this.#handOut(controller, pendingPrefix);
          pendingPrefix = null;
          return;
        }
        const chunk = await this.#read();
        if (chunk === null) controller.close();
        else this.#handOut(controller, chunk);
      },
    }, { highWaterMark: 0 });
  }

  /**
   * Stops reading after the current chunk; returns the bytes of the
   * incomplete last line handed out so far (they are the new owner's too).
   */
  pause(): Uint8Array {
    this.#paused ??= Promise.withResolvers<void>();
    return joinBytes(this.#tail);
  }

  /**
   * Whether a read would return at once: input (or its end) is there now. A zero-timeout poll(2) on this
   * thread, so it never waits.
   */
  ready(): boolean {
    const pollfd = new Uint8Array(8);
    const view = new DataView(pollfd.buffer);
    view.setInt32(0, this.#fd, true);
    view.setInt16(4, POLL.IN, true);
    return libc().poll_now(pollfd, 1n, 0) > 0;
  }

  /**
   * Whether input (or its end) is there within `ms` milliseconds: poll(2) on the blocking pool, so the thread
   * stays free meanwhile; nothing is read.
   */
  async readyWithin(ms: number): Promise<boolean> {
    const pollfd = new Uint8Array(8);
    const view = new DataView(pollfd.buffer);
    view.setInt32(0, this.#fd, true);
    view.setInt16(4, POLL.IN, true);
    return await libc().poll(pollfd, 1n, Math.max(0, Math.ceil(ms))) > 0;
  }

  /** Reads again after {@linkcode pause} (the hand-off failed). */
  resume(): void {
    this.#paused?.resolve();
    this.#paused = null;
  }

  #handOut(controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): void {
    const newline = chunk.lastIndexOf(NEWLINE);
    if (newline >= 0) {
      this.#tail = [chunk.subarray(newline + 1)];
      this.#tailBytes = chunk.length - newline - 1;
    } else if (this.#tailBytes + chunk.length <= MAX_MESSAGE_BYTES) {
      this.#tail.push(chunk);
      this.#tailBytes += chunk.length;
    } else {
      // The transport refuses a line this long anyway; no need to keep it for a new owner.
      this.#tail = [];
    }
    controller.enqueue(chunk);
  }

  /** The next chunk, or null at end of input. */
  async #read(): Promise<Uint8Array | null> {
    const pollfd = new Uint8Array(8);
    const view = new DataView(pollfd.buffer);
    let failures = 0;
    for (;;) {
      while (this.#paused) await this.#paused.promise;
      view.setInt32(0, this.#fd, true);
      view.setInt16(4, POLL.IN, true);
      view.setInt16(6, 0, true);
      const ready = await libc().poll(pollfd, 1n, POLL_SLICE_MS);
      if (ready < 0) {
        // errno is another thread's after a call on the blocking pool: an EINTR is retried, a stuck failure ends.
        if (++failures >= MAX_POLL_FAILURES) return null;
        continue;
      }
      failures = 0;
      if (ready === 0 || this.#paused) continue;
      const buffer = new Uint8Array(CHUNK_BYTES);
      const n = Number(libc().read(this.#fd, buffer, BigInt(buffer.length)));
      if (n > 0) return buffer.subarray(0, n);
      if (n === 0) return null;
      const code = errno();
      if (code !== ERRNO.EINTR && code !== ERRNO.EAGAIN) return null;
    }
  }
}
