import { RecordSplitter } from "../text/records.ts";

/** Files kept from a page's first file on (a page never lists more); the rest are counted in total_files. */
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

const STATUS_LETTERS = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type_changed",
  U: "unmerged",
} as const;

/** What happened to a file, from git's raw status letter. */
export type DiffStatus = (typeof STATUS_LETTERS)[keyof typeof STATUS_LETTERS] | "unknown";

/**
 * Streaming parser of `--raw --numstat -z` output, keeping the files from index `from` on, in git's order (the patch's
 * too). The stats are a second run because git drops the patch of a conflicted path when --raw is asked for too.
 */
export class DiffStatsParser {
  readonly #files: DiffFile[] = [];
  readonly #byPath = new Map<string, DiffFile>();
  #total = 0;
  #lastPath: string | null = null;
  /** A record naming its paths in the records after it: how many, those read so far, and what they complete. */
  #paths: { count: number; got: string[]; then(paths: string[]): void } | null = null;
  readonly #split = new RecordSplitter("\0", MAX_RECORD_CHARS, (record) => this.#record(record));

  constructor(private readonly mapPath: (gitPath: string) => string | null, private readonly from: number) {}

  push(chunk: Uint8Array): void {
    this.#split.push(chunk);
  }

  #record(text: string): void {
    const paths = this.#paths;
    if (paths) {
      paths.got.push(text);
      if (paths.got.length === paths.count) {
        this.#paths = null;
        paths.then(paths.got);
      }
      return;
    }
    if (text.length === 0) return;
    if (text.startsWith(":")) {
      // ":old new sha sha S" or, for a combined (conflict) diff, "::m m m s s s SS"; one path unless renamed/copied.
      const letters = text.slice(text.lastIndexOf(" ") + 1);
      const combined = text.startsWith("::");
      const status = combined ? "unmerged" : (STATUS_LETTERS as Record<string, DiffStatus>)[letters[0]] ?? "unknown";
      this.#paths = {
        count: !combined && (status === "renamed" || status === "copied") ? 2 : 1,
        got: [],
        then: ([first, second]) => this.#addFile(status, second ?? first, second === undefined ? null : first),
      };
      return;
    }
    const [added, removed, path] = text.split("\t");
    const count = (value: string) => value === "-" ? null : Number(value);
    const apply = (gitPath: string) => this.#applyNumstat(gitPath, count(added), count(removed));
    // A rename's numstat names its old and new path in the two records after it.
    if (path === "") this.#paths = { count: 2, got: [], then: ([, to]) => apply(to) };
    else apply(path);
  }

  #addFile(status: DiffStatus, gitPath: string, gitOldPath: string | null): void {
    // A conflicted path comes twice in a row in a work-tree diff: "U", then its change against our side.
    if (gitPath === this.#lastPath) return;
    this.#lastPath = gitPath;
    const path = this.mapPath(gitPath);
    if (path === null) return;
    const index = this.#total++;
    if (index < this.from) return;
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

  /** The stats once git has finished: the files kept, and how many the diff has. */
  result(): { files: DiffFile[]; total_files: number } {
    this.#split.end();
    return { files: this.#files, total_files: this.#total };
  }

  file(index: number): DiffFile | undefined {
    return this.#files[index - this.from];
  }
}
