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
 * stopped; {@linkcode cutPatch} then picks the cut.
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

/** Streams a patch from a position, keeping lines until `maxChars` (in JSON) or `maxBytes` is passed. */
export class PatchLines {
  readonly lines: PatchLine[] = [];
  /** Lines at the start of `lines` repeated from before the position (a resumed file's header, its hunk line). */
  replayed = 0;
  /** Whether the stream was read to its end (nothing was left unread). */
  complete = true;
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
  ) {}

  /** Feeds stdout; false once enough is kept (stop git). */
  push(chunk: Uint8Array): boolean {
    if (!this.#full) this.#split.push(chunk);
    if (this.#full) this.complete = false;
    return !this.#full;
  }

  /** Takes what is left after git ended. */
  end(): void {
    if (!this.#full) this.#split.end();
  }

  #record(record: string, cut: boolean): void {
    if (this.#full) return;
    const text = cut ? record + CUT_LINE_MARKER : record;
    const starts = SECTION_START.test(text) ? "file" : HUNK_START.test(text) ? "hunk" : null;
    if (starts === "file") {
      this.#file++;
      this.#line = 0;
      this.#header = [];
      this.#hunk = null;
    } else this.#line++;
    const line: PatchLine = { text, file: this.#file, line: this.#line, starts };
    const after = this.after;
    if (after !== null && (line.file < after.f || (line.file === after.f && line.line < after.n))) {
      // Before the position: remember what a resumed file repeats.
      if (line.file === after.f) {
        if (starts === "hunk") this.#hunk = line;
        else if (this.#hunk === null) this.#header.push(line);
      }
      return;
    }
    if (after !== null && this.lines.length === 0 && line.file === after.f && after.n > 0) {
      const replay = starts === "hunk" || this.#hunk === null ? this.#header : [...this.#header, this.#hunk];
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
