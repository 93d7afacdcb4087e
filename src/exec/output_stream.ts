import { joinBytes } from "../text/join_bytes.ts";

/** A range of absolute offsets [start, end). */
export interface ByteRange {
  start: number;
  end: number;
}

const HEAD_FRACTION = 8;
/** Smallest head or tail allocation; each grows by doubling up to its cap. */
const INITIAL_ALLOCATION_BYTES = 4096;

/**
 * One stream's retained output at absolute offsets: a frozen head (the first eighth of the budget) and a rolling tail
 * of the latest bytes; bytes between them are evicted permanently and counted, never dropped silently.
 */
export class OutputStream {
  readonly headCapacity: number;
  readonly tailCapacity: number;
  #head = new Uint8Array(0);
  #headLength = 0;
  /** Ring buffer: #tailLength bytes from #tailFirst, wrapping. */
  #tail = new Uint8Array(0);
  #tailFirst = 0;
  #tailLength = 0;
  #total = 0;
  #closed = false;

  constructor(budgetBytes: number) {
    this.headCapacity = Math.floor(budgetBytes / HEAD_FRACTION);
    this.tailCapacity = budgetBytes - this.headCapacity;
  }

  get total(): number {
    return this.#total;
  }

  get retainedBytes(): number {
    return this.#headLength + this.#tailLength;
  }

  get evictedBytes(): number {
    return this.#total - this.retainedBytes;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  retained(): ByteRange[] {
    const head = { start: 0, end: this.#headLength };
    const tail = { start: this.#total - this.#tailLength, end: this.#total };
    if (tail.start === head.end) return [{ start: 0, end: this.#total }];
    return [head, tail].filter((range) => range.end > range.start);
  }

  /** Appends a copy of `bytes`: the caller may reuse its buffer. */
  append(bytes: Uint8Array): void {
    let rest = bytes;
    if (this.#headLength < this.headCapacity && this.#tailLength === 0) {
      const take = Math.min(rest.length, this.headCapacity - this.#headLength);
      this.#growHead(this.#headLength + take);
      this.#head.set(rest.subarray(0, take), this.#headLength);
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    this.#total += bytes.length;
    if (rest.length === 0) return;
    const kept = rest.length > this.tailCapacity ? rest.subarray(rest.length - this.tailCapacity) : rest;
    this.#growTail(Math.min(this.tailCapacity, this.#tailLength + kept.length));
    const size = this.#tail.length;
    const at = (this.#tailFirst + this.#tailLength) % size;
    const first = Math.min(kept.length, size - at);
    this.#tail.set(kept.subarray(0, first), at);
    this.#tail.set(kept.subarray(first), 0);
    this.#tailLength += kept.length;
    if (this.#tailLength > size) {
      this.#tailFirst = (this.#tailFirst + this.#tailLength - size) % size;
      this.#tailLength = size;
    }
  }

  /**
   * Up to `limit` retained bytes from `start` on, never spanning an evicted gap: an `offset` in the gap moves past it
   * (the bytes `skipped`), and a read crosses from head into tail only when no gap lies between.
   */
  read(offset: number, limit: number): { bytes: Uint8Array; start: number; skipped: number } {
    const start = Math.min(offset, this.#total);
    const tailStart = this.#total - this.#tailLength;
    if (start < this.#headLength) {
      const end = Math.min(this.#headLength, start + limit);
      const head = this.#head.subarray(start, end);
      const more = tailStart === this.#headLength ? Math.min(limit - head.length, this.#tailLength) : 0;
      if (more <= 0) return { bytes: head, start, skipped: 0 };
      return { bytes: joinBytes([head, this.#copyTail(0, more)]), start, skipped: 0 };
    }
    const from = Math.max(start, tailStart);
    const length = Math.max(0, Math.min(limit, this.#total - from));
    return { bytes: this.#copyTail(from - tailStart, length), start: from, skipped: from - start };
  }

  #copyTail(position: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    const size = this.#tail.length;
    if (length === 0) return out;
    const at = (this.#tailFirst + position) % size;
    const first = Math.min(length, size - at);
    out.set(this.#tail.subarray(at, at + first));
    out.set(this.#tail.subarray(0, length - first), first);
    return out;
  }

  /** Makes the ring hold at least `needed` bytes, unwrapping its content to the start. */
  #growTail(needed: number): void {
    if (needed <= this.#tail.length) return;
    let size = Math.max(INITIAL_ALLOCATION_BYTES, this.#tail.length);
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.tailCapacity));
    grown.set(this.#copyTail(0, this.#tailLength));
    this.#tail = grown;
    this.#tailFirst = 0;
  }

  #growHead(needed: number): void {
    if (needed <= this.#head.length) return;
    let size = Math.max(INITIAL_ALLOCATION_BYTES, this.#head.length);
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.headCapacity));
    grown.set(this.#head.subarray(0, this.#headLength));
    this.#head = grown;
  }
}
