/**
 * The files of one list_files walk, gathered from `rg --files -0` as its
 * output arrives: a name that could lead outside the listed directory, fails
 * the globs or is hidden is dropped; the rest are counted, those up to the
 * page's resume path only counted, and the others kept (all of them, or
 * only the first paths in order when that is all the page can use). Names
 * that are not valid UTF-8 are decoded lossily and remembered.
 *
 * @example
 * ```ts
 * const found = new FoundFiles({
 *   rootAbs: "/repo",
 *   filter: null,
 *   includeHidden: false,
 *   afterPath: null,
 *   keepFirst: null,
 *   stopAt: Infinity,
 * });
 * found.take(new TextEncoder().encode("./b.ts\0./.hidden\0./a.ts\0"));
 * found.end();
 * found.kept(); // ["b.ts", "a.ts"]
 * ```
 */
import { isInside } from "../workspace/confine.ts";
import type { GlobFilter } from "../search/glob.ts";
import { isHiddenPath } from "../search/glob.ts";
import { decodeBytes } from "../text/utf8.ts";
import { joinBytes } from "../text/join_bytes.ts";
import { Smallest } from "./smallest.ts";

/** Which files a {@linkcode FoundFiles} keeps. */
export interface FoundFilesOptions {
  /** The absolute path of the listed directory: rg names what it finds relative to it. */
  rootAbs: string;
  /** The globs and ignore patterns a file must pass; null for all files. */
  filter: GlobFilter | null;
  includeHidden: boolean;
  /** The page resumes after this path: files up to it (in UTF-16 code-unit order) are counted, not kept. */
  afterPath: string | null;
  /** Keep only this many paths, the first in order (the rest are counted); null to keep every file as found. */
  keepFirst: number | null;
  /** Stop taking names once this many files matched. */
  stopAt: number;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Splits NUL-separated names, decoding the batch at once when it is valid UTF-8; otherwise name by name,
 * collecting the names that had to be decoded lossily.
 */
function splitNames(bytes: Uint8Array, lossy: Set<string>): string[] {
  try {
    return strictDecoder.decode(bytes).split("\0");
  } catch {
    const names: string[] = [];
    let start = 0;
    for (let at = bytes.indexOf(0);; start = at + 1, at = bytes.indexOf(0, start)) {
      const decoded = decodeBytes(bytes.subarray(start, at < 0 ? bytes.length : at));
      names.push(decoded.text);
      if (decoded.lossy) lossy.add(decoded.text);
      if (at < 0) return names;
    }
  }
}

/** Gathers the files of a walk; see the module comment. */
export class FoundFiles {
  /** Files that passed the filters. */
  matched = 0;
  /** Matched files up to `afterPath`. */
  beforeCursor = 0;
  /** The paths (relative to the listed directory) that had to be decoded lossily. */
  readonly lossy = new Set<string>();
  readonly #options: FoundFilesOptions;
  readonly #first: Smallest | null;
  readonly #all: string[] = [];
  /** Output after the last NUL: the start of a name still arriving. */
  #pending: Uint8Array = new Uint8Array(0);

  constructor(options: FoundFilesOptions) {
    this.#options = options;
    this.#first = options.keepFirst === null ? null : new Smallest(options.keepFirst);
  }

  /** Enough files matched: the walk can be ended. */
  get full(): boolean {
    return this.matched >= this.#options.stopAt;
  }

  /** Takes a chunk of rg's output. */
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
    const { rootAbs, filter, includeHidden, afterPath } = this.#options;
    for (const name of names) {
      const rel = name.startsWith("./") ? name.slice(2) : name;
      // rg names what it found below its start: a name that could lead elsewhere is dropped (it never should be).
      if (rel === "" || !isInside(rootAbs, rel)) continue;
      if (filter && !filter.matches(rel)) continue;
      if (!includeHidden && isHiddenPath(rel)) continue;
      this.matched++;
      if (afterPath !== null && rel <= afterPath) this.beforeCursor++;
      else if (this.#first) this.#first.offer(rel);
      else this.#all.push(rel);
      if (this.lossy.size > 0 && this.lossy.has(name)) this.lossy.add(rel);
      if (this.full) return;
    }
  }
}
