/**
 * One poll() for all commands' fds, woken by an eventfd (darwin: a pipe): one blocking-pool thread however many
 * commands, callbacks on the JS thread, running only while something is watched. close() defers a polled fd's close.
 */
import { libc, POLL } from "./libc.ts";
import { closeFd, readSome } from "./fd.ts";
import { PROCESS } from "./platform.ts";
import type { WakeChannel } from "./darwin.ts";

interface Watch {
  events: number;
  /** Called on the JS thread with poll's revents for the fd. */
  onReady: (revents: number) => void;
}

/** Bytes of one `struct pollfd` (int fd, short events, short revents). */
const POLLFD_BYTES = 8;
/** Size of the shared read buffer callbacks read into. */
export const READ_CHUNK_BYTES = 1024 * 1024;

/** Multiplexes readiness of many fds through one pending poll(). */
export class Reactor {
  #watches = new Map<number, Watch>();
  #deferredCloses: number[] = [];
  #waker: WakeChannel | null = null;
  #polling = false;
  #loop: Promise<void> | null = null;
  readonly #wakeBytes = new Uint8Array(new BigUint64Array([1n]).buffer);
  readonly #drainBytes = new Uint8Array(8);
  /** Scratch buffer for reads in callbacks (they run one at a time on the JS thread). */
  readonly scratch = new Uint8Array(READ_CHUNK_BYTES);

  /** Watches `fd` for `events` (POLL.IN / POLL.OUT), replacing an earlier watch of the same fd. */
  watch(fd: number, events: number, onReady: Watch["onReady"]): void {
    this.#watches.set(fd, { events, onReady });
    this.#changed();
  }

  /** Changes the events of a watched fd (e.g. adds POLL.OUT while input is pending). */
  setEvents(fd: number, events: number): void {
    const watch = this.#watches.get(fd);
    if (!watch || watch.events === events) return;
    watch.events = events;
    this.#changed();
  }

  /** Stops watching `fd` (it stays open). */
  unwatch(fd: number): void {
    if (this.#watches.delete(fd)) this.#changed();
  }

  /** Stops watching `fd` and closes it, after the pending poll returns if one lists it. */
  close(fd: number): void {
    this.#watches.delete(fd);
    if (this.#polling) {
      this.#deferredCloses.push(fd);
      this.#wake();
    } else closeFd(fd);
  }

  /** Number of watched fds (for tests and diagnostics). */
  get size(): number {
    return this.#watches.size;
  }

  /** Resolves once the loop has stopped (nothing left to watch) and every deferred close is done. */
  async idle(): Promise<void> {
    while (this.#loop) await this.#loop;
  }

  #changed(): void {
    if (this.#polling) this.#wake();
    else if (!this.#loop && this.#watches.size > 0) this.#loop = this.#run();
  }

  #wake(): void {
    this.#waker ??= PROCESS.wakeChannel();
    libc().write(this.#waker.write, this.#wakeBytes, 8n);
  }

  async #run(): Promise<void> {
    // Let the caller finish registering its fds before the first poll.
    await Promise.resolve();
    const waker = this.#waker ??= PROCESS.wakeChannel();
    const c = libc();
    try {
      while (this.#watches.size > 0) {
        const entries = [...this.#watches];
        const set = new Uint8Array(POLLFD_BYTES * (entries.length + 1));
        const view = new DataView(set.buffer);
        view.setInt32(0, waker.read, true);
        view.setInt16(4, POLL.IN, true);
        entries.forEach(([fd, watch], index) => {
          view.setInt32(POLLFD_BYTES * (index + 1), fd, true);
          view.setInt16(POLLFD_BYTES * (index + 1) + 4, watch.events, true);
        });
        this.#polling = true;
        const ready = await c.poll(set, BigInt(entries.length + 1), -1);
        this.#polling = false;
        for (const fd of this.#deferredCloses.splice(0)) closeFd(fd);
        if (ready <= 0) continue;
        if (view.getInt16(6, true) !== 0) { while (readSome(waker.read, this.#drainBytes) !== "again"); }
        entries.forEach(([fd, watch], index) => {
          const revents = view.getInt16(POLLFD_BYTES * (index + 1) + 6, true);
          // Skip fds unwatched (or re-watched) by an earlier callback of this round.
          if (revents === 0 || this.#watches.get(fd) !== watch) return;
          try {
            watch.onReady(revents);
          } catch (error) {
            console.error(`workcell: reactor callback for fd ${fd} failed:`, error);
            this.#watches.delete(fd);
          }
        });
      }
    } finally {
      this.#polling = false;
      this.#loop = null;
      for (const fd of this.#deferredCloses.splice(0)) closeFd(fd);
    }
  }
}
