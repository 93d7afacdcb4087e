import { isInside } from "../workspace/confine.ts";
import { decodeBytes } from "../text/utf8.ts";
import { joinBytes } from "../text/join_bytes.ts";
import { Smallest } from "./smallest.ts";

/** Which files a FoundFiles keeps. */
export interface FoundFilesOptions {
  rootAbs: string;
  /** Whether the file at this path (relative to the listed directory) is listed: the globs, the hidden filter. */
  wanted: (rel: string) => boolean;
  /** The page resumes after this path: files up to it (in UTF-16 code-unit order) are counted, not kept. */
  afterPath: string | null;
  /** Keep only this many paths, the first in order (the rest are counted); null to keep every file as found. */
  keepFirst: number | null;
  stopAt: number;
}

/** Splits NUL-separated names: the batch at once when it is valid UTF-8, else name by name, collecting lossy ones. */
function splitNames(bytes: Uint8Array, lossy: Set<string>): string[] {
  const batch = decodeBytes(bytes);
  if (!batch.lossy) return batch.text.split("\0");
  const names: string[] = [];
  let start = 0;
  for (let at = bytes.indexOf(0);; start = at + 1, at = bytes.indexOf(0, start)) {
    const decoded = decodeBytes(bytes.subarray(start, at < 0 ? bytes.length : at));
    names.push(decoded.text);
    if (decoded.lossy) lossy.add(decoded.text);
    if (at < 0) return names;
  }
}

/** A list_files walk's files from `rg --files -0`: names outside, filtered or hidden are dropped, the rest counted. */
export class FoundFiles {
  matched = 0;
  beforeCursor = 0;
  /** The paths (relative to the listed directory) that had to be decoded lossily. */
  readonly lossy = new Set<string>();
  readonly #first: Smallest | null;
  readonly #all: string[] = [];
  /** Output after the last NUL: the start of a name still arriving. */
  #pending: Uint8Array = new Uint8Array(0);

  constructor(private readonly options: FoundFilesOptions) {
    this.#first = options.keepFirst === null ? null : new Smallest(options.keepFirst);
  }

  /** Enough files matched: the walk can be ended. */
  get full(): boolean {
    return this.matched >= this.options.stopAt;
  }

  take(chunk: Uint8Array): void {
    const last = chunk.lastIndexOf(0);
    if (last < 0) {
      this.#pending = joinBytes([this.#pending, chunk]);
      return;
    }
    this.#accept(splitNames(joinBytes([this.#pending, chunk.subarray(0, last)]), this.lossy));
    this.#pending = chunk.slice(last + 1);
  }

  /** Takes the last name, when rg's output ended without a NUL after it. */
  end(): void {
    if (this.#pending.length > 0) this.#accept(splitNames(this.#pending, this.lossy));
  }

  /** The files kept: as found, or the first `keepFirst` in order. */
  kept(): string[] {
    return this.#first ? this.#first.sorted() : this.#all;
  }

  #accept(names: string[]): void {
    const { rootAbs, wanted, afterPath } = this.options;
    for (const name of names) {
      const rel = name.startsWith("./") ? name.slice(2) : name;
      // rg names what it found below its start: a name that could lead elsewhere is dropped (it never should be).
      if (rel === "" || !isInside(rootAbs, rel)) continue;
      if (!wanted(rel)) continue;
      this.matched++;
      if (afterPath !== null && rel <= afterPath) this.beforeCursor++;
      else if (this.#first) this.#first.offer(rel);
      else this.#all.push(rel);
      if (this.lossy.size > 0 && this.lossy.has(name)) this.lossy.add(rel);
      if (this.full) return;
    }
  }
}
