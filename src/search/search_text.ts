/**
 * Content search with the bundled ripgrep (`rg --json`): literal by
 * default, Rust regex on request, smart/sensitive/insensitive case, the
 * same ignore rules and glob meaning as list_files, binary files skipped.
 * Reading stops, and rg is killed, as soon as one match more than the cap
 * has arrived (plus the after-context of the last kept match).
 *
 * Pages: rg walks sorted (`--sort path`, one thread: the same order on
 * every call, tree order), and a page resumes after the path and line of
 * the previous page's last match, so paging to the end returns every match
 * once. A page ends at `maxResults` matches or where its JSON would pass
 * `page.maxChars`; lines are trimmed so that one match always fits.
 *
 * rg starts in the searched directory as its handle pins it (for a file, in
 * its parent, with the file's name), so the results are a view of that very
 * directory; see ripgrep_runner.ts for how its reads stay in the workspace.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { RipgrepRunner } from "./ripgrep_runner.ts";
 *
 * declare const runner: RipgrepRunner; // the server's, from its services
 * declare const options: SearchOptions;
 * const ws = openWorkspace(Deno.cwd());
 * const { data } = await searchText(ws, "src", runner, { ...options, pattern: "TODO" });
 * ```
 */
import * as path from "node:path";
import { z } from "../zod.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { isInside, PathChanged } from "../workspace/confine.ts";
import { type Handle, sameObject } from "../workspace/handle.ts";
import { fromOsError, ToolError } from "../errors.ts";
import { compileGlobs, isHiddenPath, prefilterArgs } from "./glob.ts";
import { decodeRgData, type RgData, rgWarnings } from "./ripgrep.ts";
import type { RipgrepRunner } from "./ripgrep_runner.ts";
import { utf8CutIndex } from "../text/utf8.ts";
import { treeOrder } from "../paging/tree_order.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";

/** rg error lines kept as warnings. */
export const MAX_SEARCH_WARNINGS = 20;
/** The marker put where a long line was trimmed. */
export const TRIM_MARKER = "…";
/** Worst-case growth of text in JSON (a control character becomes `\u00XX`). */
const JSON_GROWTH = 6;

/** Where a search resumes: after the match at this path (workspace-relative) and line. */
export type SearchPosition = { p: string; l: number };

/** The shape of a resume position. */
export const SEARCH_POSITION = z.strictObject({ p: z.string(), l: z.int().min(0) });

/** What to search for. */
export interface SearchOptions {
  pattern: string;
  regex: boolean;
  case: "smart" | "sensitive" | "insensitive";
  /** Glob filter relative to the searched directory (see glob.ts); ignored when a single file is searched. */
  globs: readonly string[];
  includeHidden: boolean;
  /** Lines of context before and after each match. */
  context: number;
  /** Most matches in a page. */
  maxResults: number;
  /** Each reported line is trimmed to this many UTF-8 bytes, keeping the match in view. */
  maxLineBytes: number;
  page: PageRequest<SearchPosition>;
  signal?: AbortSignal;
}

/** One matching line. */
export interface SearchMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  /** 1-based byte column of the first match in the line. */
  column: number;
  text: string;
  before: string[];
  after: string[];
  /** Present (true) when the file name is not valid UTF-8 and is shown with U+FFFD replacements. */
  path_lossy?: boolean;
}

/** A page of a search. */
export interface SearchResult {
  matches: SearchMatch[];
  /** Distinct files among the returned matches. */
  files_matched: number;
  /** More matches follow this page. */
  truncated: boolean;
  /** rg was ended before it finished the tree (cap reached or request cancelled). */
  stopped_early: boolean;
  warnings: string[];
  /** Resumes after this page; null at the end. */
  next_cursor: string | null;
}

/**
 * The bytes each reported line is trimmed to: `max_line_bytes`, or less when a match with its context could
 * otherwise take more than half of the page's JSON even at the worst growth, so that one match always fits.
 *
 * @example
 * ```ts
 * lineBytes({ maxLineBytes: 65536, context: 10 }, 48_000); // 190
 * ```
 */
export function lineBytes(options: Pick<SearchOptions, "maxLineBytes" | "context">, maxChars: number): number {
  const fits = Math.floor(maxChars / 2 / (2 * options.context + 1) / JSON_GROWTH);
  return Math.max(16, Math.min(options.maxLineBytes, fits));
}

interface RgLine {
  path: RgData;
  lines: RgData;
  line_number: number;
  submatches?: { start: number; end: number }[];
}

type RgMessage =
  | { type: "begin"; data: { path: RgData } }
  | { type: "match"; data: RgLine }
  | { type: "context"; data: RgLine }
  | { type: "end"; data: { path: RgData; binary_offset: number | null } }
  | { type: "summary"; data: unknown };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Trims a line to `maxBytes` UTF-8 bytes around byte `focus`, marking cut ends with {@linkcode TRIM_MARKER}.
 *
 * @example
 * ```ts
 * trimLine("x".repeat(1000) + "needle", 1000, 40); // "…xxxxxxxx…needle" shape, at most 40 bytes
 * ```
 */
export function trimLine(text: string, focus: number, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = encoder.encode(TRIM_MARKER).length;
  const room = Math.max(1, maxBytes - 2 * marker);
  let start = utf8CutIndex(bytes, Math.max(0, Math.min(focus - Math.floor(room / 4), bytes.length - room)));
  if (start < 0) start = 0;
  const end = utf8CutIndex(bytes, start + room);
  return (start > 0 ? TRIM_MARKER : "") + decoder.decode(bytes.subarray(start, end)) +
    (end < bytes.length ? TRIM_MARKER : "");
}

function lineText(data: RgData): string {
  const text = decodeRgData(data).text;
  return text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** The rg arguments for a search (exported for the benchmark's baseline). */
export function searchArgs(
  options: Pick<SearchOptions, "case" | "regex" | "includeHidden" | "context" | "pattern">,
  target: string,
  prefilter: string[],
): string[] {
  // Sorted: one thread, the same order on every call, so pages line up.
  const args = ["--json", "--sort=path", "--no-require-git", "--glob=!.git"];
  args.push(
    options.case === "smart" ? "--smart-case" : options.case === "sensitive" ? "--case-sensitive" : "--ignore-case",
  );
  if (!options.regex) args.push("--fixed-strings");
  if (options.includeHidden) args.push("--hidden");
  if (options.context > 0) args.push("--context", String(options.context));
  return [...args, ...prefilter, "--regexp", options.pattern, "--", target];
}

/**
 * The directory rg starts in for `target`, with the name to search in it: the directory itself and "." or, for a
 * file, its parent and the file's name. The parent is opened as any path is, and must still hold the very
 * file opened. The caller disposes a parent it gets (not `target` itself).
 */
function searchRoot(ws: Workspace, target: Handle): { dir: Handle; name: string } {
  if (target.stat.kind === "dir") return { dir: target, name: "." };
  const name = path.posix.basename(target.rel);
  const dir = ws.open(path.posix.dirname(target.rel), { expect: "dir" });
  try {
    if (!sameObject(dir.statEntry(name), target.stat)) throw new PathChanged(target.rel);
  } catch (error) {
    dir[Symbol.dispose]();
    throw error;
  }
  return { dir, name };
}

/**
 * Searches `input` (a file or directory of the workspace) for a page of matches. Bad regex → INVALID_ARGUMENT
 * with rg's reason.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { RipgrepRunner } from "./ripgrep_runner.ts";
 *
 * declare const runner: RipgrepRunner;
 * declare const options: SearchOptions;
 * const ws = openWorkspace(Deno.cwd());
 * (await searchText(ws, "src", runner, { ...options, pattern: "fn main", maxResults: 1 })).data.matches[0].path;
 * ```
 */
export async function searchText(
  ws: Workspace,
  input: string,
  runner: RipgrepRunner,
  options: SearchOptions,
): Promise<Paged<SearchResult>> {
  if (options.pattern.includes("\n")) {
    throw new ToolError("INVALID_ARGUMENT", "pattern contains a newline; search_text matches within one line", {
      details: { field: "pattern" },
    });
  }
  using target = ws.open(input, { expect: "any" });
  try {
    return await searchOpened(ws, target, runner, options);
  } catch (error) {
    throw fromOsError(error, target.rel);
  }
}

/** Starts rg in the directory that `target` is or lies in, checked to have started there. */
async function startIn(
  ws: Workspace,
  target: Handle,
  runner: RipgrepRunner,
  args: (name: string) => string[],
  signal?: AbortSignal,
) {
  const root = searchRoot(ws, target);
  // The directory is needed only until rg has started in it (it then holds it as its cwd).
  using _parent = root.dir === target ? null : root.dir;
  const rg = await runner.start({ args: args(root.name), cwd: root.dir.childCwd(), signal });
  try {
    root.dir.childStarted();
  } catch (error) {
    await rg[Symbol.asyncDispose]();
    throw error;
  }
  return { rg, rel: root.dir.rel, abs: root.dir.abs, name: root.name };
}

async function searchOpened(
  ws: Workspace,
  target: Handle,
  runner: RipgrepRunner,
  options: SearchOptions,
): Promise<Paged<SearchResult>> {
  const isDir = target.stat.kind === "dir";
  if (!isDir && target.stat.kind !== "file") {
    // rg would open a FIFO and wait for a writer, or read a device.
    throw new ToolError("NOT_A_FILE", `${target.rel} is a special file (device, FIFO or socket)`, {
      hint: "search_text searches regular files and directories.",
      details: { path: target.rel },
    });
  }
  const filter = isDir && options.globs.length > 0 ? compileGlobs(options.globs) : null;
  const started = await startIn(
    ws,
    target,
    runner,
    (name) => searchArgs(options, name, filter ? prefilterArgs(filter) : []),
    options.signal,
  );
  await using rg = started.rg;
  const root = { rel: started.rel, abs: started.abs, name: started.name };
  const prefix = root.rel === "." ? "" : `${root.rel}/`;

  const matches: SearchMatch[] = [];
  const ctx = options.context;
  const after = options.page.after;
  const trimTo = lineBytes(options, options.page.maxChars);
  let before = 0;
  let fileStart = 0; // index in matches of the current file's first match
  let file: { path: string; lossy: boolean; skip: boolean } | null = null;
  let recent: { line: number; text: string }[] = [];
  let capped = false;
  let done = false;
  let sawMessage = false;

  const openFile = (data: RgData) => {
    const decoded = decodeRgData(data);
    // rg names files relative to the directory it started in.
    const below = decoded.text.startsWith("./") ? decoded.text.slice(2) : decoded.text;
    const outside = !isInside(root.abs, below);
    const skip = outside || (isDir && ((filter !== null && !filter.matches(below)) ||
      (!options.includeHidden && isHiddenPath(below))));
    file = { path: prefix + below, lossy: decoded.lossy, skip };
    fileStart = matches.length;
    recent = [];
  };

  const onLine = (kind: "match" | "context", data: RgLine) => {
    if (file === null) openFile(data.path);
    if (file!.skip) return;
    const text = lineText(data.lines);
    const number = data.line_number;
    // Lines after a kept match (within context) are its after-context.
    for (let i = matches.length - 1; i >= fileStart; i--) {
      const earlier = matches[i];
      if (number - earlier.line > ctx) break;
      if (number > earlier.line) earlier.after.push(trimLine(text, 0, trimTo));
    }
    const skipped = kind === "match" && after !== null &&
      (treeOrder(file!.path, after.p) < 0 || (file!.path === after.p && number <= after.l));
    if (skipped) before++;
    else if (kind === "match" && !capped) {
      if (matches.length === options.maxResults) {
        capped = true;
      } else {
        const focus = data.submatches?.[0]?.start ?? 0;
        const match: SearchMatch = {
          path: file!.path,
          line: number,
          column: focus + 1,
          text: trimLine(text, focus, trimTo),
          before: recent.filter((seen) => seen.line >= number - ctx).map((seen) => trimLine(seen.text, 0, trimTo)),
          after: [],
        };
        if (file!.lossy) match.path_lossy = true;
        matches.push(match);
      }
    }
    if (ctx > 0) {
      recent.push({ line: number, text });
      if (recent.length > ctx) recent.shift();
    }
    if (capped) {
      const last = matches[matches.length - 1];
      if (ctx === 0 || last.path !== file!.path || number - last.line >= ctx) done = true;
    }
  };

  const onMessage = (message: RgMessage) => {
    sawMessage = true;
    if (message.type === "begin") openFile(message.data.path);
    else if (message.type === "match" || message.type === "context") onLine(message.type, message.data);
    else if (message.type === "end") {
      if (message.data.binary_offset !== null && file && !file.skip) matches.length = fileStart; // binary: skipped
      if (capped) done = true;
      file = null;
    }
  };

  const streamDecoder = new TextDecoder();
  // Text of a message still missing its newline, in pieces: a line spanning many chunks is joined once.
  let partial: string[] = [];
  for await (const chunk of rg.chunks()) {
    const text = streamDecoder.decode(chunk, { stream: true });
    let newline = text.indexOf("\n");
    if (newline < 0) {
      partial.push(text);
      continue;
    }
    partial.push(text.slice(0, newline));
    onMessage(JSON.parse(partial.join("")) as RgMessage);
    let start = newline + 1;
    for (newline = text.indexOf("\n", start); newline >= 0 && !done; newline = text.indexOf("\n", start)) {
      onMessage(JSON.parse(text.slice(start, newline)) as RgMessage);
      start = newline + 1;
    }
    partial = [text.slice(start)];
    if (done) {
      rg.kill();
      break;
    }
  }
  const outcome = await rg.finish();
  // Without the kernel's read confinement, a directory swapped for a symlink during the run could have
  // redirected rg below its pinned start: refuse results whose directory moved (racy, the best there is).
  if (!rg.confined) target.revalidate();
  if (outcome.code === 2 && !sawMessage) {
    // rg stops before searching anything only when it cannot use its arguments: with a confined, existing
    // path that is the pattern.
    const reason = outcome.stderr.trim().replace(/^rg: /, "");
    if (/regex|pattern|literal|syntax|look-around|backreference/i.test(reason)) {
      throw new ToolError("INVALID_ARGUMENT", `pattern is not a valid regex: ${reason}`, {
        hint:
          "Fix the regex (Rust regex syntax: no look-around or backreferences), or pass regex:false for literal text.",
        details: { field: "pattern", reason },
      });
    }
    throw new ToolError("INTERNAL", `rg failed: ${reason}`, { details: { path: target.rel, stderr: reason } });
  }
  if (options.signal?.aborted) throw new ToolError("TIMEOUT", "search_text was cancelled");
  const warnings = rgWarnings(outcome.stderr, prefix, MAX_SEARCH_WARNINGS, root.name);
  if (trimTo < options.maxLineBytes) {
    warnings.push(
      `lines are trimmed to ${trimTo} bytes (not max_line_bytes ${options.maxLineBytes}) so that a match ` +
        `with its context fits the result ceiling`,
    );
  }
  return fitPage(matches, options.page, {
    more: capped,
    start: before,
    positionAfter: (match) => ({ p: match.path, l: match.line }),
    build: (kept) => ({
      matches: kept,
      files_matched: new Set(kept.map((match) => match.path)).size,
      truncated: false,
      stopped_early: outcome.killed,
      warnings,
      next_cursor: null,
    }),
    // Room for files_matched's digits, which the empty page measured has one of.
    extraChars: String(matches.length).length,
  });
}
