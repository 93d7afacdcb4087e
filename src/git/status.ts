import { z } from "../zod.ts";
import type { GitService } from "./service.ts";
import { gitFailure } from "./runner.ts";
import { openRepoAt } from "./repo.ts";
import { RecordSplitter } from "../text/records.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";

/** Most entries a page may ask for; the rest are counted in total_entries. */
export const MAX_STATUS_ENTRIES = 5000;
/** Most entries a first page keeps for the pages after it; a larger status is run again for every page. */
export const KEPT_STATUS_ENTRIES = 100_000;
/** Longest status record kept (a path is at most 4096 bytes; headers are short). */
const MAX_RECORD_CHARS = 16 * 1024;

/** Kinds of porcelain v2 entries. */
export type StatusType = "changed" | "renamed" | "copied" | "unmerged" | "untracked" | "ignored";

/** One changed path. `index`/`worktree` are git's XY letters ("." for unmodified). */
export interface StatusEntry {
  path: string;
  index: string;
  worktree: string;
  orig_path: string | null;
  type: StatusType;
  submodule: boolean;
}

/** The branch header lines. */
export interface BranchInfo {
  branch: string | null;
  head: string | null;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  detached: boolean;
}

/** A page of the answer. */
export interface GitStatus extends BranchInfo {
  entries: StatusEntry[];
  clean: boolean;
  total_entries: number;
  truncated: boolean;
  next_cursor: string | null;
}

/** Where a status resumes: after the entry with this group (0 tracked, 1 untracked, 2 ignored) and path. */
export type StatusPosition = { g: number; p: string };

/** The shape of a resume position. */
export const STATUS_POSITION = z.strictObject({ g: z.int().min(0).max(2), p: z.string() });

function group(entry: StatusEntry): number {
  return entry.type === "untracked" ? 1 : entry.type === "ignored" ? 2 : 0;
}

function follows(entry: StatusEntry, position: StatusPosition): boolean {
  const g = group(entry);
  return g > position.g || (g === position.g && entry.path > position.p);
}

/** Splits off the first `count` space-separated fields; the remainder (a path, may hold spaces) is last. */
function fields(line: string, count: number): string[] {
  const parts = line.split(" ");
  return [...parts.slice(0, count), parts.slice(count).join(" ")];
}

/** One porcelain v2 entry record (not a `#` header); a rename or copy is followed by a record of its original path. */
function parseStatusEntry(record: string): StatusEntry {
  const tag = record[0];
  if (tag === "?" || tag === "!") {
    return {
      path: record.slice(2),
      index: tag,
      worktree: tag,
      orig_path: null,
      type: tag === "?" ? "untracked" : "ignored",
      submodule: false,
    };
  }
  // 1 XY sub mH mI mW hH hI path | 2 XY sub mH mI mW hH hI Xscore path | u XY sub m1 m2 m3 mW h1 h2 h3 path
  const count = tag === "1" ? 8 : tag === "2" ? 9 : tag === "u" ? 10 : -1;
  if (count < 0) throw new Error(`unexpected git status record ${JSON.stringify(record.slice(0, 40))}`);
  const parts = fields(record, count);
  const xy = parts[1];
  const moved = parts[8].startsWith("C") ? "copied" : "renamed"; // by a "2" entry's Xscore
  const type: StatusType = tag === "1" ? "changed" : tag === "u" ? "unmerged" : moved;
  return {
    path: parts[count],
    index: xy[0],
    worktree: xy[1],
    orig_path: null,
    type,
    submodule: parts[2].startsWith("S"),
  };
}

/** Applies a `# branch.*` header record to the branch facts. */
function applyBranchHeader(info: BranchInfo, record: string): void {
  const [, key, value] = fields(record, 2);
  if (key === "branch.oid") info.head = value === "(initial)" ? null : value;
  else if (key === "branch.head") {
    info.detached = value === "(detached)";
    info.branch = info.detached ? null : value;
  } else if (key === "branch.upstream") info.upstream = value;
  else if (key === "branch.ab") {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match) {
      info.ahead = Number(match[1]);
      info.behind = Number(match[2]);
    }
  }
}

/** Streaming status parser: maps paths by `mapPath` (null drops one), keeps `maxEntries` after `after`, counts all. */
export class StatusParser {
  readonly info: BranchInfo = { branch: null, head: null, upstream: null, ahead: null, behind: null, detached: false };
  readonly entries: StatusEntry[] = [];
  total = 0;
  changes = 0;
  /** Entries at or before `after`. */
  before = 0;
  #pending: StatusEntry | null = null;
  readonly #split = new RecordSplitter("\0", MAX_RECORD_CHARS, (record) => this.#record(record));

  constructor(
    private readonly mapPath: (gitPath: string) => string | null,
    private readonly maxEntries: number,
    private readonly after: StatusPosition | null = null,
  ) {}

  push(chunk: Uint8Array): void {
    this.#split.push(chunk);
  }

  end(): void {
    this.#split.end();
  }

  #record(text: string): void {
    if (this.#pending) {
      const entry = this.#pending;
      this.#pending = null;
      entry.orig_path = this.mapPath(text);
      this.add(entry);
      return;
    }
    if (text.length === 0) return;
    const entry = text[0] === "#" ? null : parseStatusEntry(text);
    if (entry === null) applyBranchHeader(this.info, text);
    else if (entry.type === "renamed" || entry.type === "copied") this.#pending = entry;
    else this.add(entry);
  }

  /** Counts an entry (its path as git printed it) and keeps it if it follows `after` and there is room. */
  add(entry: StatusEntry): void {
    const mapped = this.mapPath(entry.path);
    if (mapped === null) return;
    entry.path = mapped;
    this.total++;
    if (entry.type !== "ignored") this.changes++;
    if (this.after !== null && !follows(entry, this.after)) this.before++;
    else if (this.entries.length < this.maxEntries) this.entries.push(entry);
  }
}

/** Options of {@linkcode gitStatus}: a page of at most `limit` entries of the workspace (or one path in it). */
export interface StatusOptions {
  path?: string;
  includeIgnored: boolean;
  limit: number;
  page: PageRequest<StatusPosition>;
  /** Keeps a first page's whole status for its next pages; null to run git status for every page. */
  keep: SnapshotSlot<KeptStatus> | null;
  signal?: AbortSignal;
}

/** A whole status kept for the next pages: the branch facts, every entry in git's order, and the counts. */
export type KeptStatus = Pick<StatusParser, "info" | "entries" | "total" | "changes">;

/**
 * About how many bytes a kept status holds (UTF-16 paths, objects).
 * @example
 * ```ts
 * declare const status: KeptStatus;
 * keptStatusBytes(status);
 * ```
 */
export function keptStatusBytes(status: KeptStatus): number {
  return status.entries.reduce((sum, entry) => sum + 2 * (entry.path.length + (entry.orig_path?.length ?? 0)) + 160, 0);
}

/**
 * A page of git status for the workspace (or one path in it), `--porcelain=v2 -z --branch` streamed. A page resumes
 * after the previous page's last entry in git's order (tracked, untracked, ignored; each by path), so none is listed
 * twice as others come and go; a first page that does not hold all keeps the whole status in the snapshots.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * await gitStatus(git, { includeIgnored: true, limit: 200, page, keep: null });
 * ```
 */
export async function gitStatus(git: GitService, options: StatusOptions): Promise<Paged<GitStatus>> {
  const limit = Math.min(options.limit, MAX_STATUS_ENTRIES);
  const page = options.page;
  const kept = page.after !== null ? options.keep?.get() : undefined;
  let parser: StatusParser;
  if (kept !== undefined) {
    // The kept entries through the same filter a new run applies while it streams.
    parser = new StatusParser((path) => path, limit + 1, page.after);
    Object.assign(parser.info, kept.info);
    for (const entry of kept.entries) parser.add(entry);
  } else {
    const { repo, target } = await openRepoAt(git, options.path, {
      allowMissing: true,
      readsWorkTree: true,
      signal: options.signal,
    });
    const keeping = options.keep !== null && page.after === null;
    // One entry more than a page tells that more follow; a first page that may be kept takes them all.
    parser = new StatusParser(repo.fromTop, keeping ? KEPT_STATUS_ENTRIES : limit + 1, page.after);
    const args = [
      "status",
      "--porcelain=v2",
      "-z",
      "--branch",
      "--untracked-files=normal",
      "--renames",
      // Inspecting a submodule's work tree would run git under the submodule's own, unvetted config.
      "--ignore-submodules=dirty",
      ...(options.includeIgnored ? ["--ignored=matching"] : []),
      "--",
      ...(target === null ? repo.scope() : [repo.toGit(target)]),
    ];
    const run = await repo.run(args, { onStdout: (chunk) => parser.push(chunk), signal: options.signal });
    if (run.code !== 0) throw gitFailure(run, "status");
    parser.end();
    if (keeping && parser.entries.length > limit && parser.total <= KEPT_STATUS_ENTRIES) {
      const { info, entries, total, changes } = parser;
      options.keep!.put({ info, entries, total, changes });
    }
  }
  const { entries } = parser;
  return fitPage(entries.slice(0, limit), page, {
    more: entries.length > limit,
    start: parser.before,
    positionAfter: (entry) => ({ g: group(entry), p: entry.path }),
    build: (entries) => ({
      ...parser.info,
      entries,
      clean: parser.changes === 0,
      total_entries: parser.total,
      truncated: false,
      next_cursor: null,
    }),
  });
}
