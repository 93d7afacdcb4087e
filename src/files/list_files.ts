/**
 * Recursive file listing by `rg --files` (search_text's ignore engine, never following symlinks): `.gitignore`,
 * `.ignore`, `.rgignore` and `.git/info/exclude` apply also outside a git repository, the user's global excludes never.
 * A sorted first page keeps the listing for the next pages; without it a page walks again from its position.
 */
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { z } from "../zod.ts";
import { FoundFiles } from "./found_files.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { FileStat, Handle } from "../workspace/handle.ts";
import { fromOsError, ToolError } from "../errors.ts";
import { compileGlobs, type GlobFilter, prefilterArgs, wantedFiles } from "../search/glob.ts";
import { rgWarnings, type RipgrepOutcome } from "../search/ripgrep.ts";
import type { RipgrepRunner } from "../search/ripgrep_runner.ts";
import { jsonChars } from "../paging/budget.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import { BeneathDirs } from "./beneath_dirs.ts";
import { firstIndex } from "../paging/first_index.ts";

/** Files stat'ed between two yields to the event loop. */
const STAT_BATCH = 2000;

/** By path (UTF-16 code-unit order), newest first, largest first, or as found (fastest: stops at the cap). */
export type FileSort = "path" | "mtime" | "size" | "none";

/** Where a listing resumes: after a path ("path"), a key and a path ("mtime", "size"), or a count of files ("none"). */
export type ListPosition = { p: string } | { k: number; p: string } | { n: number };

/**
 * The shape of a resume position for `sort`.
 * @example
 * ```ts
 * listPositionSchema("size").parse({ k: 10, p: "a.txt" });
 * ```
 */
export function listPositionSchema(sort: FileSort): z.ZodType<ListPosition> {
  return LIST_POSITIONS[sort];
}

/** Built once: a zod schema costs about as much to build as a whole kept page of 250 paths to cut. */
const KEYED_POSITION = z.strictObject({ k: z.number(), p: z.string() });
const LIST_POSITIONS: Readonly<Record<FileSort, z.ZodType<ListPosition>>> = {
  path: z.strictObject({ p: z.string() }),
  none: z.strictObject({ n: z.int().min(0) }),
  mtime: KEYED_POSITION,
  size: KEYED_POSITION,
};

/** A sorted listing kept for its next pages: every file in page order, and the sort keys ("mtime", "size"). */
export interface KeptListing {
  rels: string[];
  keys: number[] | null;
  lossy: Set<string>;
  matched: number;
  warnings: string[];
}

/**
 * About how many bytes a kept listing holds (UTF-16 paths, array slots, keys).
 * @example
 * ```ts
 * keptBytes({ rels: ["a.ts"], keys: null, lossy: new Set(), matched: 1, warnings: [] }); // 56
 * ```
 */
export function keptBytes(listing: KeptListing): number {
  return listing.rels.reduce((bytes, rel) => bytes + 2 * rel.length + 48, 0) + (listing.keys?.length ?? 0) * 8;
}

/** Options for listFiles. */
export interface ListFilesOptions {
  /** Patterns a file must match (see src/search/glob.ts); empty for all files. */
  globs: readonly string[];
  /** Extra gitignore-style patterns to exclude, relative to the listed directory; they win over .gitignore's `!`. */
  ignore: readonly string[];
  respectGitignore: boolean;
  includeHidden: boolean;
  sort: FileSort;
  limit: number;
  page: PageRequest<ListPosition>;
  keep: SnapshotSlot<KeptListing> | null;
  signal?: AbortSignal;
}

/** One file. */
export interface FileEntry {
  path: string;
  size: number | null;
  mtime: string | null;
  path_lossy?: boolean;
}

/** A page of a listing. */
export interface FileListing {
  path: string;
  files: FileEntry[];
  truncated: boolean;
  /** Files that matched: exact unless the listing stopped at the cap with sort "none" (then null). */
  total_matched: number | null;
  warnings: string[];
  next_cursor: string | null;
}

/**
 * The rg arguments for a listing (exported for the benchmark's baseline).
 * @example
 * ```ts
 * listFilesArgs({ respectGitignore: true, includeHidden: false, sort: "path" }, []); // [..., "--", "."]
 * ```
 */
export function listFilesArgs(
  options: Pick<ListFilesOptions, "respectGitignore" | "includeHidden" | "sort">,
  prefilter: string[],
): string[] {
  const args = ["--files", "-0", "--no-require-git", "--glob=!.git"];
  // One thread walks in the same order every time (directory order), so counted pages line up.
  if (options.sort === "none") args.push("--threads=1");
  if (!options.respectGitignore) args.push("--no-ignore");
  if (options.includeHidden) args.push("--hidden");
  return [...args, ...prefilter, "--", "."];
}

/** A file's lstat, or null when it cannot be had (a lossy name, or removed meanwhile). */
type Info = FileStat | null;

/** Lstats files through their directories, opened beneath `dir` without following a symlink: never an outside file. */
async function statAll(dir: Handle, rels: readonly string[], lossy: Set<string>): Promise<Info[]> {
  using dirs = new BeneathDirs(dir);
  const infos: Info[] = [];
  for (let i = 0; i < rels.length; i++) {
    if (i > 0 && i % STAT_BATCH === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    const rel = rels[i];
    const slash = rel.lastIndexOf("/");
    const parent = lossy.has(rel) ? null : dirs.get(slash < 0 ? "." : rel.slice(0, slash));
    try {
      infos.push(parent === null ? null : parent.statEntry(rel.slice(slash + 1)));
    } catch {
      infos.push(null);
    }
  }
  return infos;
}

/**
 * Lists a page of the files under the directory `input`; throws NOT_A_DIRECTORY when it is not a directory.
 * @example
 * ```ts
 * declare const ws: import("../workspace/workspace.ts").Workspace;
 * declare const runner: import("../search/ripgrep_runner.ts").RipgrepRunner;
 * declare const options: ListFilesOptions;
 * (await listFiles(ws, "src", runner, { ...options, sort: "none", limit: 10 })).data.truncated;
 * ```
 */
export async function listFiles(
  ws: Workspace,
  input: string,
  runner: RipgrepRunner,
  options: ListFilesOptions,
): Promise<Paged<FileListing>> {
  using dir = ws.open(input, { expect: "any" });
  try {
    if (dir.stat.kind !== "dir") {
      throw new ToolError("NOT_A_DIRECTORY", `${dir.rel} is not a directory`, {
        hint: "list_files lists a directory; use read_file for a file.",
        details: { path: dir.rel },
      });
    }
    return await listOpened(dir, runner, options);
  } catch (error) {
    throw fromOsError(error, dir.rel);
  }
}

function listingFilter(options: ListFilesOptions): GlobFilter | null {
  const reinclude = options.ignore.find((pattern) => pattern.startsWith("!"));
  if (reinclude !== undefined) {
    throw new ToolError("INVALID_ARGUMENT", `ignore pattern ${JSON.stringify(reinclude)} starts with "!"`, {
      hint: "ignore patterns only exclude; use glob to choose files.",
      details: { field: "ignore" },
    });
  }
  const patterns = [...options.globs, ...options.ignore.map((pattern) => `!${pattern}`)];
  return patterns.length > 0 ? compileGlobs(patterns) : null;
}

async function listOpened(dir: Handle, runner: RipgrepRunner, options: ListFilesOptions): Promise<Paged<FileListing>> {
  const after = options.page.after;
  const prefix = dir.rel === "." ? "" : `${dir.rel}/`;
  const kept = after !== null && !("n" in after) ? options.keep?.get() : undefined;
  if (kept !== undefined) {
    const listing = (files: FileEntry[]) => listingOf(dir.rel, kept.matched, kept.warnings, files);
    const candidates = await fromKept(dir, kept, options, fittingFor(listing([]), prefix, options));
    return pageOf(candidates, kept.lossy, prefix, options, listing);
  }
  const filter = listingFilter(options);
  await using rg = await runner.start({
    args: listFilesArgs(options, filter ? prefilterArgs(filter) : []),
    cwd: dir.childCwd(),
    signal: options.signal,
  });
  const skip = after !== null && "n" in after ? after.n : 0;
  // Sort "path" keeps only the first `limit` + 1 after the cursor, unless its first page may be kept.
  const keepsAll = options.keep !== null && after === null;
  const found = new FoundFiles({
    rootAbs: dir.abs,
    wanted: wantedFiles(filter, options.includeHidden),
    afterPath: after !== null && "p" in after && !("k" in after) ? after.p : null,
    keepFirst: options.sort === "path" && !keepsAll ? options.limit + 1 : null,
    stopAt: options.sort === "none" ? skip + options.limit + 1 : Infinity,
  });
  for await (const chunk of rg.chunks()) {
    found.take(chunk);
    if (found.full) {
      rg.kill();
      break;
    }
  }
  const outcome = await rg.finish();
  // Without Landlock a directory swapped for a symlink mid-run could redirect rg: refuse moved results (racy).
  if (!rg.confined) dir.revalidate();
  if (!outcome.killed) found.end();
  assertListed(outcome, dir.rel, found.matched);
  if (options.signal?.aborted) {
    throw new ToolError("TIMEOUT", "list_files was cancelled", { details: { path: dir.rel } });
  }
  const warnings = rgWarnings(outcome.stderr, prefix);
  const total = options.sort === "none" && found.full ? null : found.matched;
  const listing = (files: FileEntry[]) => listingOf(dir.rel, total, warnings, files);
  const fitting = fittingFor(listingOf(dir.rel, found.matched, warnings, []), prefix, options);
  // What a kept listing holds besides its order.
  const listed = { lossy: found.lossy, matched: found.matched, warnings };
  let candidates: Candidates;
  let keep: KeptListing | null = null;
  if (options.sort === "mtime" || options.sort === "size") {
    const sorted = await byKey(dir, found, options);
    candidates = sorted.page;
    if (keepsAll) keep = { ...listed, rels: sorted.rels, keys: sorted.keys };
  } else if (keepsAll && options.sort === "path") {
    keep = { ...listed, rels: found.kept().sort(), keys: null };
    candidates = await fromKept(dir, keep, options, fitting);
  } else {
    candidates = await inOrder(dir, found, options, skip, fitting);
  }
  const page = pageOf(candidates, found.lossy, prefix, options, listing);
  if (keep !== null && page.data.next_cursor !== null) options.keep!.put(keep);
  return page;
}

function listingOf(path: string, total: number | null, warnings: string[], files: FileEntry[]): FileListing {
  return { path, files, truncated: false, total_matched: total, warnings, next_cursor: null };
}

/** How many of `rels` could fit the page at the least an entry takes: no more need their lstat. */
function fittingFor(empty: FileListing, prefix: string, options: ListFilesOptions): (rels: string[]) => number {
  return (rels) => {
    let room = options.page.maxChars - jsonChars(empty);
    let n = 0;
    while (n < rels.length && room > 0) room -= jsonChars({ path: prefix + rels[n++], size: 0, mtime: null }) + 1;
    return n;
  };
}

/** A page from a kept listing: files after the cursor, fresh lstats of as many as fit, those gone since left out. */
async function fromKept(
  dir: Handle,
  kept: KeptListing,
  options: ListFilesOptions,
  fitting: (rels: string[]) => number,
): Promise<Candidates> {
  const after = options.page.after;
  const { rels, keys } = kept;
  const start = after === null || "n" in after
    ? 0
    : "k" in after && keys !== null
    ? firstIndex(rels.length, (i) => keys[i] < after.k || (keys[i] === after.k && rels[i] > after.p))
    : firstIndex(rels.length, (i) => rels[i] > after.p);
  const wanted = Math.min(options.limit, fitting(rels.slice(start, start + options.limit + 1)));
  const page: Candidates = { rels: [], infos: [], keys: [], before: start };
  let next = start;
  while (page.infos.length < wanted && next < rels.length) {
    const batch = rels.slice(next, next + wanted - page.infos.length);
    const infos = await statAll(dir, batch, kept.lossy);
    batch.forEach((rel, i) => {
      if (infos[i] === null && !kept.lossy.has(rel)) return;
      page.rels.push(rel);
      page.infos.push(infos[i]);
      if (keys !== null) page.keys.push(keys[next + i]);
    });
    next += batch.length;
  }
  // One more, without its lstat, tells that more follow.
  if (next < rels.length) {
    page.rels.push(rels[next]);
    if (keys !== null) page.keys.push(keys[next]);
  }
  return page;
}

/** rg failed as a whole only when it says something not about one entry below the directory ("rg: ./x: ..."). */
function assertListed(outcome: RipgrepOutcome, rel: string, matched: number): void {
  const lines = outcome.stderr.split("\n").map((line) => line.trim()).filter(Boolean);
  if (outcome.code === 2 && matched === 0 && lines.some((line) => !line.startsWith("rg: ./"))) {
    throw new ToolError("INTERNAL", `rg --files failed: ${outcome.stderr.trim().split("\n")[0]}`, {
      details: { path: rel, stderr: outcome.stderr.slice(0, 2000) },
    });
  }
}

/** The files a page may list in page order (one more tells that more follow); `before` counts those before it. */
interface Candidates {
  rels: string[];
  infos: Info[];
  keys: number[];
  before: number;
}

/** Sort "mtime" or "size", largest (newest) first, ties by path: the page, and the whole order with its keys. */
async function byKey(
  dir: Handle,
  found: FoundFiles,
  options: ListFilesOptions,
): Promise<{ page: Candidates; rels: string[]; keys: number[] }> {
  const after = options.page.after;
  const rels = found.kept();
  const all = await statAll(dir, rels, found.lossy);
  const key = (info: Info) => (options.sort === "size" ? info?.size : info?.mtime.getTime()) ?? -1;
  const order = rels.map((_, i) => i);
  order.sort((a, b) => key(all[b]) - key(all[a]) || (rels[a] < rels[b] ? -1 : rels[a] > rels[b] ? 1 : 0));
  const rest = after !== null && "k" in after
    ? order.filter((i) => key(all[i]) < after.k || (key(all[i]) === after.k && rels[i] > after.p))
    : order;
  const page = rest.slice(0, options.limit + 1);
  return {
    page: {
      rels: page.map((i) => rels[i]),
      infos: page.map((i) => all[i]),
      keys: page.map((i) => key(all[i])),
      before: order.length - rest.length,
    },
    rels: order.map((i) => rels[i]),
    keys: order.map((i) => key(all[i])),
  };
}

/** Sort "path" or "none" (as found, after the first `skip`): lstats of only as many as could fit the page. */
async function inOrder(
  dir: Handle,
  found: FoundFiles,
  options: ListFilesOptions,
  skip: number,
  fitting: (rels: string[]) => number,
): Promise<Candidates> {
  const kept = found.kept();
  const byPath = options.sort === "path";
  const rels = byPath ? kept : kept.slice(skip, skip + options.limit + 1);
  const infos = await statAll(dir, rels.slice(0, Math.min(options.limit, fitting(rels))), found.lossy);
  return { rels, infos, keys: [], before: byPath ? found.beforeCursor : Math.min(skip, kept.length) };
}

function pageOf(
  candidates: Candidates,
  lossy: Set<string>,
  prefix: string,
  options: ListFilesOptions,
  build: (files: FileEntry[]) => FileListing,
): Paged<FileListing> {
  const { infos, keys, before } = candidates;
  const listed = Math.min(options.limit, infos.length, candidates.rels.length);
  const more = candidates.rels.length > listed;
  const rels = candidates.rels.slice(0, listed);
  const files = rels.map((rel, i): FileEntry => {
    const info = infos[i];
    const entry: FileEntry = { path: prefix + rel, size: info?.size ?? null, mtime: info?.mtime.toISOString() ?? null };
    if (lossy.has(rel)) entry.path_lossy = true;
    return entry;
  });
  const positionAfter = (_: FileEntry, i: number): ListPosition =>
    options.sort === "path"
      ? { p: rels[i] }
      : options.sort === "none"
      ? { n: before + i + 1 }
      : { k: keys[i], p: rels[i] };
  return fitPage(files, options.page, { more, start: before, positionAfter, build });
}
