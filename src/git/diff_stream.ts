/**
 * Parsers for the two streams a diff is read from: the stats of
 * `git diff|show --raw --numstat -z` (NUL-terminated raw records, then
 * numstat records) and the unified patch of `-p`, kept only up to
 * `maxBytes` (cut at a line end when one is in reach) while git is stopped
 * once the bound is passed. (One combined stream would do, but git drops
 * the patch of a conflicted path when --raw is asked for too.)
 *
 * @example
 * const stats = new DiffStatsParser(repo.fromCwd);
 * const patch = new PatchCollector(65536);
 * // feed each git run's stdout to push(), then:
 * const { files } = stats.result(); const text = patch.result(files);
 */
import { RecordSplitter } from "./records.ts";
import { utf8CutIndex } from "../text/utf8.ts";

/** Files listed; the rest are counted in total_files. */
export const MAX_DIFF_FILES = 5000;
const MAX_RECORD_CHARS = 16 * 1024;

/** One file of a diff. `added`/`removed` are null for binary files and unmerged paths. */
export interface DiffFile {
  path: string;
  old_path: string | null;
  status: DiffStatus;
  added: number | null;
  removed: number | null;
  binary: boolean;
}

/** What happened to a file, from git's raw status letter. */
export type DiffStatus =
  | "added"
  | "modified"
  | "deleted"
  | "renamed"
  | "copied"
  | "type_changed"
  | "unmerged"
  | "unknown";

const STATUS_LETTERS: Record<string, DiffStatus> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type_changed",
  U: "unmerged",
};

const decoder = new TextDecoder();
/** Where a file's section starts in patch text. */
const SECTION_START = /^(diff --git |diff --cc |diff --combined |\* Unmerged path )/gm;

/**
 * Cuts patch bytes to at most `maxBytes`: at the last line end within the
 * bound, or on a UTF-8 character boundary when a single line is longer.
 *
 * @example
 * cutPatch(new TextEncoder().encode("a\nbc\n"), 4); // "a\n"
 */
export function cutPatch(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.length <= maxBytes) return decoder.decode(bytes);
  const lineEnd = bytes.lastIndexOf(0x0a, maxBytes - 1) + 1;
  return decoder.decode(bytes.subarray(0, lineEnd > 0 ? lineEnd : utf8CutIndex(bytes, maxBytes)));
}

/** The per-file stats of a diff. */
export interface DiffStats {
  files: DiffFile[];
  total_files: number;
}

/** Streaming parser of `--raw --numstat -z` output. */
export class DiffStatsParser {
  readonly #files: DiffFile[] = [];
  readonly #byPath = new Map<string, DiffFile>();
  #total = 0;
  #lastPath: string | null = null;
  /** A raw record whose status letter is known and whose path field(s) come next. */
  #raw: { status: DiffStatus; paths: number; got: string[] } | null = null;
  /** A numstat record waiting for its two rename paths. */
  #numstat: { added: number | null; removed: number | null; got: string[] } | null = null;
  readonly #split: RecordSplitter;

  constructor(private readonly mapPath: (gitPath: string) => string | null) {
    this.#split = new RecordSplitter("\0", MAX_RECORD_CHARS, (record) => this.#record(record));
  }

  push(chunk: Uint8Array): void {
    this.#split.push(chunk);
  }

  #record(text: string): void {
    if (this.#raw) {
      this.#raw.got.push(text);
      if (this.#raw.got.length === this.#raw.paths) {
        const [first, second] = this.#raw.got;
        this.#addFile(this.#raw.status, second === undefined ? first : second, second === undefined ? null : first);
        this.#raw = null;
      }
      return;
    }
    if (this.#numstat) {
      this.#numstat.got.push(text);
      if (this.#numstat.got.length === 2) {
        this.#applyNumstat(this.#numstat.got[1], this.#numstat.added, this.#numstat.removed);
        this.#numstat = null;
      }
      return;
    }
    if (text.length === 0) return;
    if (text.startsWith(":")) {
      // ":old new sha sha S" or, for a combined (conflict) diff, "::m m m s s s SS"; one path unless renamed/copied.
      const letters = text.slice(text.lastIndexOf(" ") + 1);
      const combined = text.startsWith("::");
      const status = combined ? "unmerged" : STATUS_LETTERS[letters[0]] ?? "unknown";
      this.#raw = { status, paths: !combined && (status === "renamed" || status === "copied") ? 2 : 1, got: [] };
      return;
    }
    const [added, removed, path] = text.split("\t");
    const count = (value: string) => value === "-" ? null : Number(value);
    if (path === "") this.#numstat = { added: count(added), removed: count(removed), got: [] };
    else this.#applyNumstat(path, count(added), count(removed));
  }

  #addFile(status: DiffStatus, gitPath: string, gitOldPath: string | null): void {
    // A conflicted path comes twice in a row in a work-tree diff: "U", then its change against our side.
    if (gitPath === this.#lastPath) return;
    this.#lastPath = gitPath;
    const path = this.mapPath(gitPath);
    if (path === null) return;
    this.#total++;
    const file: DiffFile = {
      path,
      old_path: gitOldPath === null ? null : this.mapPath(gitOldPath),
      status,
      added: null,
      removed: null,
      binary: false,
    };
    if (this.#files.length === MAX_DIFF_FILES) return;
    this.#files.push(file);
    this.#byPath.set(gitPath, file);
  }

  #applyNumstat(gitPath: string, added: number | null, removed: number | null): void {
    const file = this.#byPath.get(gitPath);
    if (!file) return;
    file.added = added;
    file.removed = removed;
    file.binary = added === null;
  }

  /** The stats once git has finished. */
  result(): DiffStats {
    this.#split.end();
    return { files: this.#files, total_files: this.#total };
  }
}

/** The bounded patch text and what was cut. */
export interface PatchText {
  diff: string;
  truncated: boolean;
  shown_bytes: number;
  /** Paths whose patch is missing from `diff` or only partly in it. */
  cut_files: string[];
}

/** Collects patch bytes up to a bound (one byte more, to know that the bound was passed). */
export class PatchCollector {
  #parts: Uint8Array[] = [];
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Feeds stdout; returns false once the bound is passed (stop git). */
  push(chunk: Uint8Array): boolean {
    const part = chunk.subarray(0, this.maxBytes + 1 - this.#bytes);
    this.#parts.push(part);
    this.#bytes += part.length;
    return this.#bytes <= this.maxBytes;
  }

  /** The text, and which of `files` (in git's order, the patch's order) it does not fully show. */
  result(files: readonly DiffFile[]): PatchText {
    const all = new Uint8Array(this.#bytes);
    let at = 0;
    for (const part of this.#parts) {
      all.set(part, at);
      at += part.length;
    }
    const truncated = this.#bytes > this.maxBytes;
    const diff = cutPatch(all, this.maxBytes);
    // The last section begun is partial (its end was cut); every later one is missing.
    const sections = diff.match(SECTION_START)?.length ?? 0;
    const cutFiles = truncated ? files.slice(Math.max(0, sections - 1)).map((file) => file.path) : [];
    return { diff, truncated, shown_bytes: new TextEncoder().encode(diff).length, cut_files: cutFiles };
  }
}
