import type { Handle } from "../workspace/handle.ts";

/** Largest read from disk (the buffer grows to this size, then is reused). */
export const READ_CHUNK_BYTES = 1024 * 1024;
/** The first read; each next one doubles up to READ_CHUNK_BYTES, so small ranges read little past their end. */
export const FIRST_READ_BYTES = 64 * 1024;

const LF = 0x0a;

/** A file read forward through one buffer grown with the reads: zeroing 1 MiB per small file cost more than reading. */
export class ChunkReader {
  /** The bytes of the last read (a view of the reused buffer: valid until the next read). */
  chunk: Uint8Array = new Uint8Array(0);
  at = 0;
  /** The file position of `chunk[0]`; at the end of the file, the file's end. */
  base: number;
  bytesRead = 0;
  #buffer = new Uint8Array(FIRST_READ_BYTES);
  #want = FIRST_READ_BYTES;

  constructor(private readonly file: Pick<Handle, "read">, start: number) {
    this.base = start;
  }

  get exhausted(): boolean {
    return this.at >= this.chunk.length;
  }

  /** Reads the chunk after the current one, scanning from its start; false at the end of the file. */
  async next(): Promise<boolean> {
    this.base += this.chunk.length;
    if (this.#buffer.length < this.#want) this.#buffer = new Uint8Array(this.#want);
    const n = await this.file.read(this.#buffer.subarray(0, this.#want), this.base);
    this.#want = Math.min(READ_CHUNK_BYTES, this.#want * 2);
    this.bytesRead += n;
    this.chunk = this.#buffer.subarray(0, n);
    this.at = 0;
    return n > 0;
  }

  /** Reads `length` bytes at `position` aside, into a new array, leaving the chunk as it is. */
  async peek(position: number, length: number): Promise<Uint8Array> {
    const bytes = new Uint8Array(length);
    const n = await this.file.read(bytes, position);
    this.bytesRead += n;
    return bytes.subarray(0, n);
  }
}

/**
 * Number of `\n` bytes in `bytes[from, to)`, a 32-bit word at a time (the high bit of each 0x0a byte set, no carries).
 * @example
 * ```ts
 * countNewlines(new TextEncoder().encode("a\nb\nc"), 0, 5); // 2
 * ```
 */
export function countNewlines(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  let at = from;
  const head = Math.min(to, (bytes.byteOffset + at + 3 & ~3) - bytes.byteOffset);
  for (; at < head; at++) if (bytes[at] === LF) n++;
  const words = Math.max(0, (to - at) >> 2);
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + at, words);
    for (let k = 0; k < words; k++) {
      const x = view[k] ^ 0x0a0a0a0a;
      const hit = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
      if (hit !== 0) n += ((hit >>> 7) & 1) + ((hit >>> 15) & 1) + ((hit >>> 23) & 1) + ((hit >>> 31) & 1);
    }
    at += words * 4;
  }
  for (; at < to; at++) if (bytes[at] === LF) n++;
  return n;
}
