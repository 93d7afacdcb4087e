/**
 * Recursive file listing with git's ignore rules, globs, a hidden filter, a
 * sort and a cap. The walk is the bundled ripgrep's (`rg --files`): the
 * same ignore engine search_text uses, parallel, never following symlinks,
 * so symlinks (to files or directories) are not listed. With sort "none"
 * the listing stops, and rg is ended, as soon as the cap is reached.
 *
 * Ignore rules: `.gitignore` (nested files, negation, parents up to the
 * repository root), `.ignore`, `.rgignore` and `.git/info/exclude`, applied
 * also outside a git repository; the user's global excludes file is not read.
 *
 * @example
 * const listing = await listFiles(ws, await confine(ws, "."), rgPath, {
 *   globs: ["**\/*.ts"], ignore: [], respectGitignore: true, includeHidden: false, sort: "path", limit: 1000,
 * });
 */
import * as path from "node:path";
import { type ConfinedPath, toRelative, type Workspace } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";
import { compileGlobs, isHiddenPath, prefilterArgs } from "../search/glob.ts";
import { decodeBytes, startRipgrep } from "../search/ripgrep.ts";

/** Files stat'ed at once. */
const STAT_CONCURRENCY = 64;
/** rg error lines kept as warnings. */
export const MAX_WARNINGS = 20;

/** How files are ordered: by path (byte order), newest first, largest first, or as found (fastest, stops at the cap). */
export type FileSort = "path" | "mtime" | "size" | "none";

/** Options for {@linkcode listFiles}. */
export interface ListFilesOptions {
  /** Patterns a file must match (see src/search/glob.ts); empty for all files. */
  globs: readonly string[];
  /** Extra gitignore-style patterns to exclude, relative to the listed directory; they win over .gitignore's `!`. */
  ignore: readonly string[];
  respectGitignore: boolean;
  includeHidden: boolean;
  sort: FileSort;
  limit: number;
  signal?: AbortSignal;
}

/** One file. */
export interface FileEntry {
  path: string;
  size: number | null;
  mtime: string | null;
  /** Present (true) when the name is not valid UTF-8 and is shown with U+FFFD replacements. */
  path_lossy?: boolean;
}

/** A listing. */
export interface FileListing {
  path: string;
  files: FileEntry[];
  truncated: boolean;
  /** Files that matched: exact unless the listing stopped at the cap with sort "none" (then null). */
  total_matched: number | null;
  /** What rg reported about entries it could not read. */
  warnings: string[];
}

interface Found {
  /** Relative to the listed directory. */
  rel: string;
  lossy: boolean;
  info?: Deno.FileInfo | null;
}

/** The rg arguments for a listing (exported for the benchmark's baseline). */
export function listFilesArgs(
  options: Pick<ListFilesOptions, "respectGitignore" | "includeHidden">,
  prefilter: string[],
): string[] {
  const args = ["--files", "-0", "--no-require-git", "--glob=!.git"];
  if (!options.respectGitignore) args.push("--no-ignore");
  if (options.includeHidden) args.push("--hidden");
  return [...args, ...prefilter, "--", "."];
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/** Splits rg's NUL-separated output into names, decoding each batch at once when it is valid UTF-8. */
function* splitNames(bytes: Uint8Array): Generator<{ name: string; lossy: boolean }> {
  let text: string | null = null;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    text = null;
  }
  if (text !== null) {
    for (const name of text.split("\0")) yield { name, lossy: false };
    return;
  }
  let start = 0;
  for (let at = bytes.indexOf(0); at >= 0; start = at + 1, at = bytes.indexOf(0, start)) {
    const decoded = decodeBytes(bytes.subarray(start, at));
    yield { name: decoded.text, lossy: decoded.lossy };
  }
  const decoded = decodeBytes(bytes.subarray(start));
  yield { name: decoded.text, lossy: decoded.lossy };
}

async function statAll(base: string, found: Found[]): Promise<void> {
  for (let i = 0; i < found.length; i += STAT_CONCURRENCY) {
    await Promise.all(
      found.slice(i, i + STAT_CONCURRENCY).map(async (item) => {
        if (item.info !== undefined) return;
        item.info = item.lossy ? null : await Deno.lstat(path.join(base, item.rel)).catch(() => null);
      }),
    );
  }
}

/**
 * Lists files under `dir` (already confined). Throws NOT_A_DIRECTORY when `dir` is not a directory.
 *
 * @example
 * (await listFiles(ws, dir, rgPath, { ...options, sort: "none", limit: 10 })).truncated;
 */
export async function listFiles(
  ws: Workspace,
  dir: ConfinedPath,
  rgPath: string,
  options: ListFilesOptions,
): Promise<FileListing> {
  const info = await Deno.stat(dir.abs);
  if (!info.isDirectory) {
    throw new ToolError("NOT_A_DIRECTORY", `${dir.rel} is not a directory`, {
      hint: "list_files lists a directory; use read_file for a file.",
      details: { path: dir.rel },
    });
  }
  const reinclude = options.ignore.find((pattern) => pattern.startsWith("!"));
  if (reinclude !== undefined) {
    throw new ToolError("INVALID_ARGUMENT", `ignore pattern ${JSON.stringify(reinclude)} starts with "!"`, {
      hint: "ignore patterns only exclude; use glob to choose files.",
      details: { field: "ignore" },
    });
  }
  // Extra ignore patterns are final exclusions: the same as "!pattern" at the end of the glob list.
  const patterns = [...options.globs, ...options.ignore.map((pattern) => `!${pattern}`)];
  const filter = patterns.length > 0 ? compileGlobs(patterns) : null;
  const rg = startRipgrep(rgPath, {
    args: listFilesArgs(options, filter ? prefilterArgs(filter) : []),
    cwd: dir.abs,
    signal: options.signal,
  });
  const stopAt = options.sort === "none" ? options.limit + 1 : Infinity;
  const found: Found[] = [];
  let pending: Uint8Array = new Uint8Array(0);
  const accept = (name: string, lossy: boolean) => {
    const rel = name.startsWith("./") ? name.slice(2) : name;
    if (rel === "" || rel.startsWith("/") || /(^|\/)\.\.(\/|$)/.test(rel)) return; // never outside the directory
    if (filter && !filter.matches(rel)) return;
    if (!options.includeHidden && isHiddenPath(rel)) return;
    found.push({ rel, lossy });
  };
  try {
    for await (const chunk of rg.chunks()) {
      const last = chunk.lastIndexOf(0);
      if (last < 0) {
        pending = join(pending, chunk);
        continue;
      }
      const batch = join(pending, chunk.subarray(0, last));
      pending = chunk.slice(last + 1);
      for (const { name, lossy } of splitNames(batch)) {
        accept(name, lossy);
        if (found.length >= stopAt) break;
      }
      if (found.length >= stopAt) {
        rg.kill();
        break;
      }
    }
  } finally {
    if (found.length >= stopAt) rg.kill();
  }
  const outcome = await rg.finish();
  if (!outcome.killed && pending.length > 0) {
    for (const { name, lossy } of splitNames(pending)) accept(name, lossy);
  }
  if (outcome.code === 2 && found.length === 0 && outcome.stderr.trim() !== "") {
    throw new ToolError("INTERNAL", `rg --files failed: ${outcome.stderr.trim().split("\n")[0]}`, {
      details: { path: dir.rel, stderr: outcome.stderr.slice(0, 2000) },
    });
  }
  if (options.signal?.aborted) {
    throw new ToolError("TIMEOUT", "list_files was cancelled", { details: { path: dir.rel } });
  }

  const truncated = found.length > options.limit;
  const total = options.sort === "none" && truncated ? null : found.length;
  let chosen: Found[];
  if (options.sort === "none") chosen = found.slice(0, options.limit);
  else if (options.sort === "path") {
    found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    chosen = found.slice(0, options.limit);
  } else {
    await statAll(dir.abs, found);
    const key = (item: Found) => (options.sort === "size" ? item.info?.size : item.info?.mtime?.getTime()) ?? -1;
    found.sort((a, b) => key(b) - key(a) || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    chosen = found.slice(0, options.limit);
  }
  await statAll(dir.abs, chosen);
  const files = chosen.map((item): FileEntry => {
    const entry: FileEntry = {
      path: toRelative(ws, path.join(dir.abs, item.rel)),
      size: item.info?.size ?? null,
      mtime: item.info?.mtime?.toISOString() ?? null,
    };
    if (item.lossy) entry.path_lossy = true;
    return entry;
  });
  const warnings = outcome.stderr.split("\n").map((line) => line.trim()).filter(Boolean).slice(0, MAX_WARNINGS);
  return { path: dir.rel, files, truncated, total_matched: total, warnings };
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
