/** Snapshots a session keeps at once: a few listings paged side by side. */
export const MAX_SNAPSHOTS = 4;
/** Bytes (estimated) a session's snapshots may hold together: a 77,000-file listing takes about 8 MiB. */
export const MAX_SNAPSHOT_BYTES = 48 * 1024 * 1024;
/** A snapshot unused this long is dropped: an agent pages on at once, or starts over. */
export const SNAPSHOT_IDLE_MS = 120_000;

/** One query's place among a session's snapshots, as the module that pages it reads and fills it. */
export interface SnapshotSlot<T> {
  get(): T | undefined;
  put(value: T): void;
}

/**
 * One session's snapshots (least recently used first): what a paged listing keeps, by its cursors' query, so a later
 * page reads from it instead of walking the tree again. A page whose snapshot is gone walks anew: slower, same answer.
 */
export class Snapshots {
  readonly #kept = new Map<string, { value: unknown; bytes: number; timer: ReturnType<typeof setTimeout> }>();
  #bytes = 0;

  /** The snapshot kept under `key`, or undefined (never made, dropped or expired); a hit keeps it fresh. */
  get<T>(key: string): T | undefined {
    const kept = this.#kept.get(key);
    if (kept === undefined) return undefined;
    this.#kept.delete(key);
    clearTimeout(kept.timer);
    kept.timer = this.#expire(key);
    this.#kept.set(key, kept);
    return kept.value as T;
  }

  /** Keeps `value` (about `bytes` large) under `key`, dropping the least recently used to stay in bounds. */
  put(key: string, value: unknown, bytes: number): void {
    this.#drop(key);
    if (bytes > MAX_SNAPSHOT_BYTES) return;
    while (this.#kept.size >= MAX_SNAPSHOTS || this.#bytes + bytes > MAX_SNAPSHOT_BYTES) {
      this.#drop(this.#kept.keys().next().value!);
    }
    this.#kept.set(key, { value, bytes, timer: this.#expire(key) });
    this.#bytes += bytes;
  }

  /** The slot of `key`, its values sized by `bytes`: what a paged module is handed to keep its listing in. */
  slot<T>(key: string, bytes: (value: T) => number): SnapshotSlot<T> {
    return { get: () => this.get<T>(key), put: (value) => this.put(key, value, bytes(value)) };
  }

  /** Drops every snapshot: the session ended, or may have changed what they list. */
  clear(): void {
    for (const key of [...this.#kept.keys()]) this.#drop(key);
  }

  get size(): number {
    return this.#kept.size;
  }

  #expire(key: string): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.#drop(key), SNAPSHOT_IDLE_MS);
    Deno.unrefTimer(timer); // a kept snapshot never holds the process open
    return timer;
  }

  #drop(key: string): void {
    const kept = this.#kept.get(key);
    if (kept === undefined) return;
    clearTimeout(kept.timer);
    this.#kept.delete(key);
    this.#bytes -= kept.bytes;
  }
}
