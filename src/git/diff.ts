import { ToolError } from "../errors.ts";
import { isInside } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { gitFailure } from "./runner.ts";
import { checkRevision, confinedPath, type GitRepo, openRepo } from "./repo.ts";
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
  maxBytes: number;
  rev?: string;
  page: PageRequest<DiffPosition>;
  keep?: SnapshotSlot<KeptDiff>;
  signal?: AbortSignal;
}

/** What a page's git run read past its page (PatchLines' read-ahead), kept in the snapshots for later pages. */
export interface KeptDiff {
  /** The patch lines read, from the start of a file's section. */
  lines: PatchLine[];
  /** Whether `lines` end where the patch does. */
  ends: boolean;
  /** The stats of every file from index `filesFrom` on, in git's order. */
  files: DiffFile[];
  filesFrom: number;
  total_files: number;
  bytes: number;
}

/** A page of a diff: its files' stats and patch text. */
export interface DiffPage {
  files: DiffFile[];
  total_files: number;
  diff: string;
  truncated: boolean;
  shown_bytes: number;
  /** Lines at the start of `diff` repeated from the previous page: a continued file's header (and `@@` line). */
  repeated_lines: number;
  cut_files: string[];
  next_cursor: string | null;
}

/** A page of a diff with its lines, for a text that shows less than the page (cursorAfter counts lines). */
export interface PagedDiff extends Paged<DiffPage> {
  lines: readonly PatchLine[];
  replayed: number;
  fileAt(index: number): DiffFile | undefined;
}

const encoder = new TextEncoder();

/** Characters a page's budget leaves for its next_cursor. */
export const CURSOR_RESERVE_CHARS = 160;

/** Options shared by both streams: renames, no external diff or textconv, submodules by commit. */
const COMMON_ARGS = ["-M", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty"];

function pathArgs(repo: GitRepo): string[] {
  if (repo.parent) return ["--relative"];
  // A repository inside the workspace: prefix the text's a/ b/ paths so they read workspace-relative.
  const prefix = repo.fromCwd(".");
  return prefix !== null && prefix !== "." ? [`--src-prefix=a/${prefix}/`, `--dst-prefix=b/${prefix}/`] : [];
}

/**
 * Runs a diff git command twice in parallel (stats and patch), each feeding its parser as git writes (the patch run may
 * stop once its page is full), and builds one page from the request's position; `head` is the command and its options,
 * `tail` the revisions and pathspec, `fixedChars` the rest of the result's JSON. With `keep` the patch run reads ahead,
 * and keeps that unless the page is the last or stats were cut.
 * @example
 * ```ts
 * declare const repo: import("./repo.ts").GitRepo;
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * await readDiff(repo, ["diff"], ["--", "."], { context: 3, maxBytes: 20480, page, fixedChars: 0 });
 * ```
 */
export async function readDiff(
  repo: GitRepo,
  head: string[],
  tail: string[],
  options: PageOptions & {
    context: number;
    keep?: (read: KeptDiff) => void;
    signal?: AbortSignal;
  },
): Promise<PagedDiff> {
  const common = [...head, ...COMMON_ARGS, ...pathArgs(repo)];
  const after = options.page.after;
  const { keep } = options;
  const filesFrom = after?.f ?? 0;
  const stats = new DiffStatsParser(repo.fromCwd, filesFrom);
  const patch = new PatchLines(after, options.page.maxChars, options.maxBytes, keep !== undefined);
  const run = (args: string[], parser: { push(chunk: Uint8Array): boolean | void }) =>
    repo.run([...common, ...args, ...tail], { onStdout: (chunk) => parser.push(chunk), signal: options.signal });
  const [statsRun, patchRun] = await Promise.all([
    run(["--raw", "--numstat", "-z"], stats),
    run(["-p", `-U${options.context}`, "--submodule=short"], patch),
  ]);
  if (statsRun.code !== 0) throw gitFailure(statsRun, common[0]);
  if (!patchRun.stopped && patchRun.code !== 0) throw gitFailure(patchRun, common[0]);
  patch.end();
  const { files, total_files } = stats.result();
  const lines = patch.ahead;
  if (keep !== undefined && lines !== null && !patch.complete && files.length === total_files - filesFrom) {
    // Strings as UTF-16 plus an object per line and file.
    const bytes = lines.reduce((sum, line) => sum + keptLineBytes(line.text), 0) +
      files.reduce((sum, file) => sum + 128 + 2 * (file.path.length + (file.old_path?.length ?? 0)), 0);
    keep({ lines, ends: patch.aheadEnds, files, filesFrom, total_files, bytes });
  }
  return diffPage(patch, total_files, (index) => stats.file(index), options);
}

/**
 * The page at a later position from what an earlier page's run read past its own, without git; null if that ends first.
 * @example
 * ```ts
 * declare const kept: KeptDiff;
 * const page = { after: { f: 2, n: 0 }, encode: JSON.stringify, maxChars: 48_000 };
 * keptDiffPage(kept, { maxBytes: 20480, page, fixedChars: 0 }); // null: read it with readDiff
 * ```
 */
export function keptDiffPage(kept: KeptDiff, options: PageOptions): PagedDiff | null {
  const { page, maxBytes } = options;
  const patch = PatchLines.replay(kept.lines, kept.ends, page.after!, page.maxChars, maxBytes);
  if (patch === null || page.after!.f < kept.filesFrom) return null;
  const fileAt = (index: number) => kept.files[index - kept.filesFrom];
  return diffPage(patch, kept.total_files, fileAt, options);
}

interface PageOptions {
  maxBytes: number;
  page: PageRequest<DiffPosition>;
  fixedChars: number;
}

function diffPage(
  patch: PatchLines,
  total_files: number,
  fileAt: PagedDiff["fileAt"],
  options: PageOptions,
): PagedDiff {
  const { page } = options;
  const after = page.after;
  const lines = patch.lines;
  const minKeep = Math.min(lines.length, patch.replayed + 1);

  const build = (kept: number): DiffPage => {
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
      next_cursor: more && last ? page.encode({ f: last.file, n: last.line + 1 }) : null,
    };
  };
  // Lines cost their JSON and an escaped newline; a file's first line also its stats and, if it is cut, its path.
  const budget = page.maxChars - options.fixedChars - jsonChars(build(0)) - CURSOR_RESERVE_CHARS;
  const cost = (line: PatchLine, i: number) => {
    const opens = i === 0 || lines[i - 1].file !== line.file;
    const file = opens ? fileAt(line.file) : undefined;
    return jsonStringChars(line.text) + 2 + (file ? jsonChars(file) + jsonStringChars(file.path) + 4 : 0);
  };
  const bytes = (line: PatchLine) => encoder.encode(line.text).length + 1;
  const share = (part: number) => overflowAt(lines, [[budget * part, cost], [options.maxBytes * part, bytes]]);
  const kept = cutPatch(lines, share(1), share(0.5), patch.replayed);
  const data = build(kept);
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

/**
 * git_diff: work tree vs index, index vs HEAD (`staged`) or vs `rev`, a page at a time (cut by ./diff_page.ts).
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * const page = { after: null, encode: JSON.stringify, maxChars: 48_000 };
 * await gitDiff(git, { staged: true, paths: ["src"], context: 0, maxBytes: 4096, page });
 * ```
 */
export async function gitDiff(git: GitService, options: DiffOptions): Promise<PagedDiff> {
  const kept = options.page.after === null ? undefined : options.keep?.get();
  const fromKept = kept && keptDiffPage(kept, { ...options, fixedChars: 0 });
  if (fromKept) return fromKept;
  const targets = (options.paths ?? []).map((input) => confinedPath(git.ws, input, true));
  // Every form of diff may read the work tree (`rev` ":/.." compares one commit with it): drivers are blanked.
  const { repo } = await openRepo(git, targets[0] ?? null, { readsWorkTree: true, signal: options.signal });
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
