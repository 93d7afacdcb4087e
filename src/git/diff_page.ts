import { z } from "../zod.ts";
import { RecordSplitter } from "../text/records.ts";
import { jsonStringChars } from "../paging/budget.ts";
import { firstIndex } from "../paging/first_index.ts";

/** Longest patch line kept, in UTF-16 code units; a longer one is cut and ends with {@linkcode CUT_LINE_MARKER}. */
export const MAX_PATCH_LINE_CHARS = 4096;
/** Ends a patch line that was cut. */
export const CUT_LINE_MARKER = "…";

/** Where a patch resumes: at line `n` (0-based) of the section of file `f` (0-based, git's order). */
export type DiffPosition = { f: number; n: number };

/** The shape of a resume position. */
export const DIFF_POSITION = z.strictObject({ f: z.int().min(0), n: z.int().min(0) });

/** One line of a patch. */
export interface PatchLine {
  text: string;
  file: number;
  /** Its line number in that file's section, from 0 (the `diff --git` line). */
  line: number;
  /** Whether it starts a file's section or a hunk (a cut before it keeps whole files, or hunks). */
  starts: "file" | "hunk" | null;
}

const SECTION_START = /^(diff --git |diff --cc |diff --combined |\* Unmerged path )/;
const HUNK_START = /^@@/;

/** Most bytes (by keptLineBytes) one read-ahead holds: a third of a session's snapshots (src/paging/snapshots.ts). */
export const KEPT_PATCH_BYTES = 16 * 1024 * 1024;

/** A read-ahead reads on until the patch read is this many times what it took to fill the page. */
export const READ_AHEAD_FACTOR = 8;

/**
 * About how many bytes a patch line takes in memory: its object and its UTF-16 text.
 * @example
 * ```ts
 * keptLineBytes("+a"); // 68
 * ```
 */
export function keptLineBytes(text: string): number {
  return 64 + 2 * text.length;
}

/**
 * Streams a patch from a position, keeping lines until `maxChars` (in JSON) or `maxBytes` is passed; a page resuming
 * inside a file repeats its header (and the hunk's `@@` line) so it reads as a patch. With `readAhead` it holds in
 * `ahead` the lines from the position's file on, reading to {@linkcode READ_AHEAD_FACTOR} times what filled the page:
 * git cannot skip, and eightfold reads page a long patch in a few runs instead of one per page.
 */
export class PatchLines {
  readonly lines: PatchLine[] = [];
  /** Lines at the start of `lines` repeated from before the position (a resumed file's header, its hunk line). */
  replayed = 0;
  complete = true;
  /** Read-ahead lines from the position's file on; null without one or if they pass the bound before the page fills. */
  ahead: PatchLine[] | null;
  /** With a read-ahead: whether `ahead` ends where the patch does. */
  aheadEnds = false;
  #aheadBytes = 0;
  /** Characters of the patch read, and how many a read-ahead reads (set once the page is full). */
  #read = 0;
  #readUntil = Infinity;
  #file = -1;
  #line = 0;
  #header: PatchLine[] = [];
  #hunk: PatchLine | null = null;
  #chars = 0;
  #bytes = 0;
  #full = false;
  readonly #encoder = new TextEncoder();
  readonly #split = new RecordSplitter("\n", MAX_PATCH_LINE_CHARS, (record, cut) => this.#record(record, cut));

  constructor(
    private readonly after: DiffPosition | null,
    private readonly maxChars: number,
    private readonly maxBytes: number,
    readAhead = false,
  ) {
    this.ahead = readAhead ? [] : null;
  }

  /** The page at `after` from a read-ahead's lines (`ends`: to the patch's end), or null if they end too soon. */
  static replay(
    lines: readonly PatchLine[],
    ends: boolean,
    after: DiffPosition,
    maxChars: number,
    maxBytes: number,
  ): PatchLines | null {
    // The lines start at a section; those of files before the position's only pass by.
    if (lines.length === 0 || after.f < lines[0].file) return null;
    const read = new PatchLines(after, maxChars, maxBytes);
    const start = firstIndex(lines.length, (i) => lines[i].file >= after.f);
    for (let i = start; i < lines.length && !read.#full; i++) read.#take(lines[i]);
    if (!read.#full && !ends) return null;
    read.complete = !read.#full;
    return read;
  }

  /** Feeds stdout; false once enough is kept (stop git). */
  push(chunk: Uint8Array): boolean {
    if (!this.#done()) this.#split.push(chunk);
    if (this.#full) this.complete = false;
    return !this.#done();
  }

  end(): void {
    if (this.#done()) return;
    this.#split.end();
    this.aheadEnds = this.ahead !== null;
  }

  #done(): boolean {
    return this.#full && (this.ahead === null || this.#read >= this.#readUntil || this.#aheadBytes > KEPT_PATCH_BYTES);
  }

  #record(record: string, cut: boolean): void {
    if (this.#done()) return;
    const text = cut ? record + CUT_LINE_MARKER : record;
    const starts = SECTION_START.test(text) ? "file" : HUNK_START.test(text) ? "hunk" : null;
    if (starts === "file") {
      this.#file++;
      this.#line = 0;
    } else this.#line++;
    this.#read += text.length + 1;
    const line: PatchLine = { text, file: this.#file, line: this.#line, starts };
    if (this.ahead !== null && line.file >= (this.after?.f ?? -1)) {
      this.ahead.push(line);
      this.#aheadBytes += keptLineBytes(text);
      if (!this.#full && this.#aheadBytes > KEPT_PATCH_BYTES) this.ahead = null;
    }
    if (this.#full) return;
    this.#take(line);
    if (this.#full) this.#readUntil = READ_AHEAD_FACTOR * this.#read;
  }

  /** Skips a line before the position (remembering what a resumed file repeats), else keeps it. */
  #take(line: PatchLine): void {
    if (line.starts === "file") {
      this.#header = [];
      this.#hunk = null;
    }
    const after = this.after;
    if (after !== null && (line.file < after.f || (line.file === after.f && line.line < after.n))) {
      if (line.file === after.f) {
        if (line.starts === "hunk") this.#hunk = line;
        else if (this.#hunk === null) this.#header.push(line);
      }
      return;
    }
    if (after !== null && this.lines.length === 0 && line.file === after.f && after.n > 0) {
      const replay = line.starts === "hunk" || this.#hunk === null ? this.#header : [...this.#header, this.#hunk];
      for (const repeated of replay) this.#keep({ ...repeated, starts: null });
      this.replayed = replay.length;
    }
    this.#keep(line);
  }

  #keep(line: PatchLine): void {
    this.lines.push(line);
    this.#chars += jsonStringChars(line.text) + 2;
    this.#bytes += this.#encoder.encode(line.text).length + 1;
    if (this.#chars > this.maxChars || this.#bytes > this.maxBytes) this.#full = true;
  }
}

/**
 * The index of the first of `lines` that passes one of the `[budget, cost]` budgets, or `lines.length` if all fit.
 * @example
 * ```ts
 * declare const lines: PatchLine[];
 * overflowAt(lines, [[16_000, (line) => line.text.length + 1]]);
 * ```
 */
export function overflowAt(
  lines: readonly PatchLine[],
  budgets: readonly [number, (line: PatchLine, index: number) => number][],
): number {
  const used = budgets.map(() => 0);
  for (let i = 0; i < lines.length; i++) {
    for (const [k, [budget, cost]] of budgets.entries()) {
      used[k] += cost(lines[i], i);
      if (used[k] > budget) return i;
    }
  }
  return lines.length;
}

/**
 * How many of `lines` a page keeps, given the first that does not fit (`overflow`) and the first past half the budget
 * (`half`): all if none overflows, else cut at the last boundary keeping the page half full: before a file, else a hunk
 * (of a file with some body kept), else the line that overflows. The `replayed` lines and one more always stay.
 * @example
 * ```ts
 * declare const lines: PatchLine[];
 * cutPatch(lines, 40, 25, 0);
 * ```
 */
export function cutPatch(lines: readonly PatchLine[], overflow: number, half: number, replayed: number): number {
  const minKeep = Math.min(lines.length, replayed + 1);
  if (overflow >= lines.length) return lines.length;
  // Where each line's file has its body start: a resumed file right after its repeated lines, else its first hunk.
  const bodyStart = new Map<number, number>();
  if (replayed > 0) bodyStart.set(lines[0].file, replayed);
  lines.forEach((line, i) => {
    if (line.starts === "hunk" && !bodyStart.has(line.file)) bodyStart.set(line.file, i);
  });
  const fileCut = (j: number) => lines[j].starts === "file";
  const hunkCut = (j: number) => lines[j].starts === "hunk" && j > (bodyStart.get(lines[j].file) ?? Infinity);
  const lowest = Math.max(minKeep, 1, half);
  for (const accept of [fileCut, hunkCut]) {
    for (let j = overflow; j >= lowest; j--) if (accept(j)) return j;
  }
  return Math.max(overflow, minKeep);
}
