/**
 * Pages of a unified patch (git_diff and git_show): the patch is read as
 * lines, each knowing its file (section) and its line number in that file's
 * section, and a page keeps whole files when it can, else whole hunks, else
 * whole lines. A page that resumes inside a file repeats that file's header
 * lines (and the hunk's `@@` line when it resumes inside a hunk), so every
 * page reads as a patch.
 *
 * Reading is bounded: {@linkcode PatchLines} skips to the position, keeps
 * lines until the page's bound is passed, and then asks for git to be
 * stopped (or, when asked to read ahead, once it has read some pages
 * further); {@linkcode cutPatch} then picks the cut. The lines read ahead
 * page again with {@linkcode PatchLines.replay}, with no git run.
 *
 * @example
 * ```ts
 * const read = new PatchLines({ f: 3, n: 0 }, 48_000, 65536);
 * // feed git's stdout to read.push() (stop git when it returns false), then:
 * const cost = (line: PatchLine) => line.text.length + 1;
 * const kept = cutPatch(read.lines, overflowAt(read.lines, [[20_000, cost]]), overflowAt(read.lines, [[10_000, cost]]), 0);
 * ```
 */
import { z } from "../zod.ts";
import { RecordSplitter } from "./records.ts";
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
  /** Index of its file (section) in the patch. */
  file: number;
  /** Its line number in that file's section, from 0 (the `diff --git` line). */
  line: number;
  /** Whether it starts a file's section or a hunk (a cut before it keeps whole files, or hunks). */
  starts: "file" | "hunk" | null;
}

/** Where a file's section starts. */
const SECTION_START = /^(diff --git |diff --cc |diff --combined |\* Unmerged path )/;
const HUNK_START = /^@@/;

/**
 * Bytes (estimated by {@linkcode keptLineBytes}) of patch lines one read-ahead holds at most: a third of a session's
 * snapshots (src/paging/snapshots.ts), e.g. 4.4 MB of a patch of 40-character lines.
 */
export const KEPT_PATCH_BYTES = 16 * 1024 * 1024;

/** A read-ahead reads on until the patch read is this many times what it took to fill the page. */
export const READ_AHEAD_FACTOR = 8;

/**
 * About how many bytes a patch line takes in memory: its object and its UTF-16 text.
 *
 * @example
 * ```ts
 * keptLineBytes("+a"); // 68
 * ```
 */
export function keptLineBytes(text: string): number {
  return 64 + 2 * text.length;
}

/**
 * Streams a patch from a position, keeping lines until `maxChars` (in JSON) or `maxBytes` is passed. With
 * `readAhead`, it also holds in `ahead` the lines from the section of the position's file on, and reads on past a
 * full page until the patch read is {@linkcode READ_AHEAD_FACTOR} times what filled it (or the lines held pass
 * {@linkcode KEPT_PATCH_BYTES}): a page that resumes deep in a patch reads it from its start (git cannot skip), so
 * reads that grow eightfold read a patch paged to its end a few times instead of once per page.
 */
export class PatchLines {
  readonly lines: PatchLine[] = [];
  /** Lines at the start of `lines` repeated from before the position (a resumed file's header, its hunk line). */
  replayed = 0;
  /** Whether the stream was read to its end (nothing was left unread). */
  complete = true;
  /**
   * With a read-ahead: the lines read from the section of the position's file on; null without one, or when the
   * lines before the page's end alone pass {@linkcode KEPT_PATCH_BYTES} (deep in one huge file).
   */
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

  /**
   * The page at `after` read from `lines` that a read-ahead held (`ahead`, ending where the patch does when
   * `ends`): the same lines a new git run gives, or null when they end before the page is full.
   *
   * @example
   * ```ts
   * const whole = new PatchLines(null, 100, 100_000, true);
   * whole.push(new TextEncoder().encode("diff --git a/a b/a\n@@ -1 +1 @@\n-a\n+b\n"));
   * whole.end();
   * PatchLines.replay(whole.ahead!, whole.aheadEnds, { f: 0, n: 3 }, 48_000, 65536)?.lines.length; // 3
   * ```
   */
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

  /** Takes what is left after git ended. */
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
 * The first of `lines` that passes a budget when each costs `costs` of it (several budgets at once), or
 * `lines.length` when they all fit.
 *
 * @example
 * ```ts
 * const read = new PatchLines(null, 48_000, 65536);
 * read.push(new TextEncoder().encode("diff --git a/a.txt b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"));
 * overflowAt(read.lines, [[16_000, (line) => line.text.length + 1]]);
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
 * How many of `lines` a page keeps when line `overflow` is the first that does not fit and line `half` the
 * first past half the budget: all when none overflows; else cut at the last boundary that keeps the page at
 * least half full: before a file, else before a hunk (of a file with some of its body kept), else before the
 * line that does not fit. The `replayed` lines at the start (a resumed file's header) and one more are always
 * kept.
 *
 * @example
 * ```ts
 * const lines = new PatchLines(null, 48_000, 65536).lines; // filled by push() from git's stdout
 * const budget = (share: number) => overflowAt(lines, [[16_000 * share, (line) => line.text.length + 1]]);
 * cutPatch(lines, budget(1), budget(0.5), 0);
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
