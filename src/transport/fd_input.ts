/**
 * stdin read with poll(2) then read(2) through FFI on the JS thread, so no read is in flight elsewhere (Deno's stdin
 * keeps one pending on its blocking pool, and a byte it took is gone from the fd): so a ready check consumes nothing.
 */
import { ERRNO, errno, libc, POLL } from "../os/libc.ts";

/** How long one poll waits before looking again (so a paused or finished reader never holds a call for long). */
const POLL_SLICE_MS = 1000;
const CHUNK_BYTES = 64 * 1024;
/** poll(2) failures in a row after which the input counts as ended (EINTR comes one at a time). */
const MAX_POLL_FAILURES = 100;

/** A reader of one fd that can say whether input is there without reading it. */
export class FdInput {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
    this.readable = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await this.#read();
        if (chunk === null) controller.close();
        else controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
  }

  /** Whether input (or its end) is there now: a zero-timeout poll(2) on this thread, so it never waits. */
  ready(): boolean {
    return libc().poll_now(this.#pollfd(), 1n, 0) > 0;
  }

  /** Whether input (or its end) is there within `ms`: poll(2) on the blocking pool, so the thread stays free. */
  async readyWithin(ms: number): Promise<boolean> {
    return await libc().poll(this.#pollfd(), 1n, Math.max(0, Math.ceil(ms))) > 0;
  }

  /** A struct pollfd asking whether this fd is readable (poll(2) writes only its revents). */
  #pollfd(): Uint8Array {
    const pollfd = new Uint8Array(8);
    const view = new DataView(pollfd.buffer);
    view.setInt32(0, this.#fd, true);
    view.setInt16(4, POLL.IN, true);
    return pollfd;
  }

  async #read(): Promise<Uint8Array | null> {
    const pollfd = this.#pollfd();
    let failures = 0;
    for (;;) {
      const ready = await libc().poll(pollfd, 1n, POLL_SLICE_MS);
      if (ready < 0) {
        // errno is another thread's after a call on the blocking pool: an EINTR is retried, a stuck failure ends.
        if (++failures >= MAX_POLL_FAILURES) return null;
        continue;
      }
      failures = 0;
      if (ready === 0) continue;
      const buffer = new Uint8Array(CHUNK_BYTES);
      const n = Number(libc().read(this.#fd, buffer, BigInt(buffer.length)));
      if (n > 0) return buffer.subarray(0, n);
      if (n === 0) return null;
      const code = errno();
      if (code !== ERRNO.EINTR && code !== ERRNO.EAGAIN) return null;
    }
  }
}
