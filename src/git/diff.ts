/**
 * git_diff: the work tree against the index (default), the index against
 * HEAD (`staged`), or against a revision or range (`rev`), a page at a time:
 * the stats of the page's files plus their unified text, whole files when
 * they fit, else whole hunks, else whole lines (./diff_page.ts), within
 * `max_bytes` and the result ceiling.
 *
 * @example
 * ```ts
 * import type { GitService } from "./service.ts";
 *
 * declare const git: GitService; // the server's, from its services
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * const { data } = await gitDiff(git, { staged: false, context: 3, maxBytes: 20480, page });
 * data.files; // [{ path: "src/a.ts", status: "modified", added: 2, removed: 1, binary: false, old_path: null }]
 * ```
 */
import { ToolError } from "../errors.ts";
import { isInside } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { gitFailure } from "./runner.ts";
import { checkRevision, type GitRepo, openRepo } from "./repo.ts";
import { type DiffFile, DiffStatsParser } from "./diff_stream.ts";
import { cutPatch, type DiffPosition, keptLineBytes, overflowAt, type PatchLine, PatchLines } from "./diff_page.ts";
import { jsonChars, jsonStringChars } from "../paging/budget.ts";
import type { Paged, PageRequest } from "../paging/cursor.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";

/** Options of {@linkcode gitDiff}. */
export interface DiffOptions {
  staged: boolean;
  paths?: string[];
  context: number;
  /** Bound on the bytes of a page's patch text. */
  maxBytes: number;
  rev?: string;
  page: PageRequest<DiffPosition>;
  /** Where a page keeps what its git run read past it, for the pages after it. */
  keep?: SnapshotSlot<KeptDiff>;
  signal?: AbortSignal;
}

/**
 * What a page's git run read of a diff past its page (./diff_page.ts PatchLines' read-ahead), kept in the session's
 * snapshots for the pages after it: the patch lines from a file's section on and the stats of the files from there.
 */
export interface KeptDiff {
  /** The patch lines read, from the start of a file's section. */
  lines: PatchLine[];
  /** Whether `lines` end where the patch does. */
  ends: boolean;
  /** The stats of every file from index `filesFrom` on, in git's order. */
  files: DiffFile[];
  filesFrom: number;
  total_files: number;
  /** About how many bytes it takes (UTF-16 strings, objects). */
  bytes: number;
}

/** A page of a diff: its files' stats and patch text. */
export interface DiffPage {
  files: DiffFile[];
  total_files: number;
  diff: string;
  /** More of the diff follows this page. */
  truncated: boolean;
  shown_bytes: number;
  /** Lines at the start of `diff` repeated from the previous page: the header (and `@@` line) of a file it continues. */
  repeated_lines: number;
  /** Files of this page whose patch is only partly in it (continued from the previous page or on the next). */
  cut_files: string[];
  /** Resumes after this page; null at the end. */
  next_cursor: string | null;
}

/** A page of a diff with its lines, for a text that shows less than the page (cursorAfter counts lines). */
export interface PagedDiff extends Paged<DiffPage> {
  lines: readonly PatchLine[];
  /** Lines at the start of `lines` repeated from the previous page (a resumed file's header): shown whole. */
  replayed: number;
  /** The stats of the file with this index, when known. */
  fileAt(index: number): DiffFile | undefined;
}

const encoder = new TextEncoder();

/** Room kept for the page's cursor (a short JSON position, base64url). */
const CURSOR_RESERVE_CHARS = 160;

/** Options shared by both streams: renames, no external diff or textconv, submodules by commit. */
const COMMON_ARGS = ["-M", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty"];

/** Options that make the paths of both streams workspace-relative. */
function pathArgs(repo: GitRepo): string[] {
  if (repo.parent) return ["--relative"];
  // A repository inside the workspace: prefix the text's a/ b/ paths so they read workspace-relative.
  const prefix = repo.fromCwd(".");
  return prefix !== null && prefix !== "." ? [`--src-prefix=a/${prefix}/`, `--dst-prefix=b/${prefix}/`] : [];
}

/**
 * Runs a diff-producing git command twice in parallel, once for the stats and once for the patch, and builds
 * one page from the request's position; `head` is the command and its own options, `tail` the revisions and
 * pathspec, `fixedChars` what the rest of the caller's result takes in JSON.
 *
 * @example
 * ```ts
 * import { openRepo } from "./repo.ts";
 * import type { GitService } from "./service.ts";
 *
 * declare const git: GitService;
 * const repo = await openRepo(git, null, { readsWorkTree: true });
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * const tail = ["--end-of-options", "--", "."];
 * await readDiff(repo, ["diff", "--cached"], tail, { context: 3, maxBytes: 20480, page, fixedChars: 0 });
 * ```
 */
export async function readDiff(
  repo: GitRepo,
  head: string[],
  tail: string[],
  options: PageOptions & {
    context: number;
    /** Reads ahead past the page and takes what was read, for the pages after it. */
    keep?: (read: KeptDiff) => void;
    signal?: AbortSignal;
  },
): Promise<PagedDiff> {
  return diffPage(await runDiffs(repo, [...head, ...COMMON_ARGS, ...pathArgs(repo)], tail, options), options);
}

/**
 * The page at a later position from what an earlier page's git run read past its own (no git run): the page
 * readDiff would build, or null when the kept lines end before it does.
 *
 * @example
 * ```ts
 * declare const kept: KeptDiff; // put by an earlier page's readDiff
 * const page = { after: { f: 2, n: 0 }, encode: JSON.stringify, maxChars: 48_000 };
 * keptDiffPage(kept, { maxBytes: 20480, page, fixedChars: 0 }); // null: read it with readDiff
 * ```
 */
export function keptDiffPage(kept: KeptDiff, options: PageOptions): PagedDiff | null {
  const { page, maxBytes } = options;
  const patch = PatchLines.replay(kept.lines, kept.ends, page.after!, page.maxChars, maxBytes);
  if (patch === null || page.after!.f < kept.filesFrom) return null;
  const fileAt = (index: number) => kept.files[index - kept.filesFrom];
  return diffPage({ patch, total_files: kept.total_files, fileAt }, options);
}

/** What shapes a page of a diff: its position and bounds, and what the rest of the caller's result takes. */
interface PageOptions {
  /** Bound on the bytes of a page's patch text. */
  maxBytes: number;
  page: PageRequest<DiffPosition>;
  fixedChars: number;
}

/** The page of a diff read from its position: the lines that fit, cut at a file, hunk or line. */
function diffPage({ patch, total_files, fileAt }: DiffRead, options: PageOptions): PagedDiff {
  const { page } = options;
  const after = page.after;
  const lines = patch.lines;
  const minKeep = Math.min(lines.length, patch.replayed + 1);

  /** The page of the first `kept` lines. */
  const build = (kept: number, encode: boolean): DiffPage => {
    const shown = lines.slice(0, kept);
    const more = kept < lines.length || !patch.complete;
    const last = shown.at(-1);
    const indexes = [...new Set(shown.map((line) => line.file))];
    const files = indexes.map(fileAt).filter((file) => file !== undefined);
    const diff = shown.map((line) => `${line.text}\n`).join("");
    const cut: DiffFile[] = [];
    if (after !== null && after.n > 0 && shown[0]?.file === after.f) cut.push(fileAt(after.f)!);
    if (more && last && (kept < lines.length ? lines[kept].file === last.file : true)) cut.push(fileAt(last.file)!);
    return {
      files,
      total_files,
      diff,
      truncated: more,
      shown_bytes: encoder.encode(diff).length,
      repeated_lines: Math.min(kept, patch.replayed),
      cut_files: [...new Set(cut.filter(Boolean).map((file) => file.path))],
      next_cursor: more && last && encode ? page.encode({ f: last.file, n: last.line + 1 }) : null,
    };
  };
  // Lines cost their JSON and an escaped newline; a file's first line also its stats and, if it is cut, its path.
  const budget = page.maxChars - options.fixedChars - jsonChars(build(0, false)) - CURSOR_RESERVE_CHARS;
  const cost = (line: PatchLine, i: number) => {
    const opens = i === 0 || lines[i - 1].file !== line.file;
    const file = opens ? fileAt(line.file) : undefined;
    return jsonStringChars(line.text) + 2 + (file ? jsonChars(file) + jsonStringChars(file.path) + 4 : 0);
  };
  const bytes = (line: PatchLine) => encoder.encode(line.text).length + 1;
  const share = (part: number) => overflowAt(lines, [[budget * part, cost], [options.maxBytes * part, bytes]]);
  const kept = cutPatch(lines, share(1), share(0.5), patch.replayed);
  const data = build(kept, true);
  const cursorAfter = (shown: number) => {
    const line = lines[Math.max(shown, minKeep) - 1];
    return line && (shown < kept || data.truncated) ? page.encode({ f: line.file, n: line.line + 1 }) : null;
  };
  return {
    data,
    start: lines[0]?.file ?? after?.f ?? 0,
    cursorAfter,
    lines: lines.slice(0, kept),
    replayed: patch.replayed,
    fileAt,
  };
}

/** The patch lines of a page and the stats of the diff's files. */
interface DiffRead {
  patch: PatchLines;
  total_files: number;
  fileAt(index: number): DiffFile | undefined;
}

/**
 * Runs the stats and the patch of one diff side by side, each feeding its parser as git writes; the patch run
 * may stop early once its page is full. With a place to keep it, it reads ahead past the page and keeps what it
 * read for the pages after it (when the page is not the last, and no file's stats were left out).
 */
async function runDiffs(
  repo: GitRepo,
  common: string[],
  tail: string[],
  options: PageOptions & { context: number; keep?: (read: KeptDiff) => void; signal?: AbortSignal },
): Promise<DiffRead> {
  const after = options.page.after;
  const { keep } = options;
  const filesFrom = after?.f ?? 0;
  const stats = new DiffStatsParser(repo.fromCwd, filesFrom);
  const patch = new PatchLines(after, options.page.maxChars, options.maxBytes, keep !== undefined);
  const [statsRun, patchRun] = await Promise.all([
    repo.run([...common, "--raw", "--numstat", "-z", ...tail], {
      onStdout: (chunk) => stats.push(chunk),
      signal: options.signal,
    }),
    repo.run([...common, "-p", `-U${options.context}`, "--submodule=short", ...tail], {
      onStdout: (chunk) => patch.push(chunk),
      signal: options.signal,
    }),
  ]);
  if (statsRun.code !== 0) throw gitFailure(statsRun, common[0]);
  if (!patchRun.stopped && patchRun.code !== 0) throw gitFailure(patchRun, common[0]);
  patch.end();
  const { files, total_files } = stats.result();
  const lines = patch.ahead;
  if (keep !== undefined && lines !== null && !patch.complete && files.length === total_files - filesFrom) {
    keep({ lines, ends: patch.aheadEnds, files, filesFrom, total_files, bytes: keptDiffBytes(lines, files) });
  }
  return { patch, total_files, fileAt: (index) => stats.file(index) };
}

/** About how many bytes a kept diff holds: its strings as UTF-16 and an object per line and file. */
function keptDiffBytes(lines: readonly PatchLine[], files: readonly DiffFile[]): number {
  let bytes = 0;
  for (const line of lines) bytes += keptLineBytes(line.text);
  for (const file of files) bytes += 128 + 2 * (file.path.length + (file.old_path?.length ?? 0));
  return bytes;
}

/**
 * Runs git diff with the options of the tool, for one page.
 *
 * @example
 * ```ts
 * import type { GitService } from "./service.ts";
 *
 * declare const git: GitService; // the server's, from its services
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * await gitDiff(git, { staged: true, paths: ["src"], context: 0, maxBytes: 4096, page });
 * ```
 */
export async function gitDiff(git: GitService, options: DiffOptions): Promise<PagedDiff> {
  // A page an earlier one read past reads no git (the cursor binds it to this query).
  const kept = options.page.after === null ? undefined : options.keep?.get();
  const fromKept = kept && keptDiffPage(kept, { ...options, fixedChars: 0 });
  if (fromKept) return fromKept;
  const targets = (options.paths ?? []).map((input) => {
    using target = git.ws.open(input, { expect: "any", allowMissing: true });
    return target.abs;
  });
  // Every form of diff may read the work tree (`rev` ":/.." compares one commit with it): drivers are blanked.
  const repo = await openRepo(git, targets[0] ?? null, { readsWorkTree: true, signal: options.signal });
  const pathspec = targets.map((target) => repo.toGit(target));
  const outside = pathspec.find((spec) => !isInside(repo.cwd, spec));
  if (outside !== undefined) {
    throw new ToolError("INVALID_ARGUMENT", `paths: ${outside} is not in the repository at ${repo.fromCwd(".")}`, {
      hint: "Give paths of one repository per call.",
      details: { field: "paths" },
    });
  }
  const tail = ["--end-of-options"];
  if (options.rev !== undefined) tail.push(checkRevision(options.rev, "rev"));
  tail.push("--", ...(pathspec.length > 0 ? pathspec : repo.scope()));
  const head = options.staged ? ["diff", "--cached"] : ["diff"];
  return await readDiff(repo, head, tail, {
    ...options,
    fixedChars: 0,
    keep: options.keep && ((read) => options.keep!.put(read)),
  });
}
