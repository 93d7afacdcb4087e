/** Content search with `rg --json`; a page resumes after the last match in rg's sorted order: each match comes once. */
import * as path from "node:path";
import { z } from "../zod.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { PathChanged } from "../workspace/confine.ts";
import { type Handle, sameObject } from "../workspace/handle.ts";
import { fromOsError, ToolError } from "../errors.ts";
import { compileGlobs, prefilterArgs, wantedFiles } from "./glob.ts";
import { rgWarnings, type RipgrepProcess } from "./ripgrep.ts";
import type { RipgrepRunner } from "./ripgrep_runner.ts";
import {
  MatchCollector,
  type MatchCollectorOptions,
  type RgMessage,
  type SearchMatch,
  type SearchPosition,
} from "./match_collector.ts";
import { type KeptSearch, replayKept, SearchReadAhead } from "./kept_search.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { RecordSplitter } from "../text/records.ts";

/** Worst-case growth of text in JSON (a control character becomes `\u00XX`). */
const JSON_GROWTH = 6;

/** The shape of a resume position (SearchPosition). */
export const SEARCH_POSITION = z.strictObject({ p: z.string(), l: z.int().min(0) });

/** What to search for. */
export interface SearchOptions {
  pattern: string;
  regex: boolean;
  case: "smart" | "sensitive" | "insensitive";
  /** Glob filter relative to the searched directory (see glob.ts); ignored when a single file is searched. */
  globs: readonly string[];
  includeHidden: boolean;
  context: number;
  maxResults: number;
  /** Each reported line is trimmed to this many UTF-8 bytes, keeping the match in view. */
  maxLineBytes: number;
  page: PageRequest<SearchPosition>;
  /** Where a page keeps what its rg run read past it, for the pages after it (./kept_search.ts). */
  keep?: SnapshotSlot<KeptSearch>;
  signal?: AbortSignal;
}

/** A page of a search. */
export interface SearchResult {
  matches: SearchMatch[];
  files_matched: number;
  truncated: boolean;
  /** rg was ended before it finished the tree (cap reached or request cancelled). */
  stopped_early: boolean;
  warnings: string[];
  next_cursor: string | null;
}

/**
 * The bytes each line is trimmed to: `max_line_bytes`, or less so a match with its context fits half a page's JSON.
 * @example
 * ```ts
 * lineBytes({ maxLineBytes: 65536, context: 10 }, 48_000); // 190
 * ```
 */
export function lineBytes(options: Pick<SearchOptions, "maxLineBytes" | "context">, maxChars: number): number {
  const fits = Math.floor(maxChars / 2 / (2 * options.context + 1) / JSON_GROWTH);
  return Math.max(16, Math.min(options.maxLineBytes, fits));
}

/** rg's flag for each case mode. */
const CASE_FLAGS = { smart: "--smart-case", sensitive: "--case-sensitive", insensitive: "--ignore-case" } as const;

/**
 * The rg arguments for a search (exported for the benchmark's baseline).
 * @example
 * ```ts
 * searchArgs({ case: "smart", regex: false, includeHidden: false, context: 0, pattern: "TODO" }, ".", []);
 * ```
 */
export function searchArgs(
  options: Pick<SearchOptions, "case" | "regex" | "includeHidden" | "context" | "pattern">,
  target: string,
  prefilter: string[],
): string[] {
  // Sorted: one thread, the same order on every call, so pages line up.
  const args = ["--json", "--sort=path", "--no-require-git", "--glob=!.git", CASE_FLAGS[options.case]];
  if (!options.regex) args.push("--fixed-strings");
  if (options.includeHidden) args.push("--hidden");
  if (options.context > 0) args.push("--context", String(options.context));
  return [...args, ...prefilter, "--regexp", options.pattern, "--", target];
}

/**
 * Searches `input` (a file or directory of the workspace) for a page of matches; a bad regex is INVALID_ARGUMENT.
 * @example
 * ```ts
 * declare const ws: import("../workspace/workspace.ts").Workspace;
 * declare const runner: import("./ripgrep_runner.ts").RipgrepRunner;
 * declare const options: SearchOptions;
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
  // A page an earlier run read past runs no rg (the cursor binds it to this query).
  const kept = options.page.after === null ? undefined : options.keep?.get();
  const fromKept = kept && replayKept(kept, { ...kept.reported, ...collecting(options) });
  if (fromKept) return pageOf(fromKept, options, []);
  using target = ws.open(input, { expect: "any" });
  try {
    return await searchOpened(ws, target, runner, options);
  } catch (error) {
    throw fromOsError(error, target.rel);
  }
}

/**
 * Starts rg where it searches `name`: in `target` with ".", or in a file's parent (checked to still hold that file)
 * with the file's name.
 */
async function startIn(
  ws: Workspace,
  target: Handle,
  runner: RipgrepRunner,
  args: (name: string) => string[],
  signal?: AbortSignal,
) {
  const isDir = target.stat.kind === "dir";
  const name = isDir ? "." : path.posix.basename(target.rel);
  // The parent is needed only until rg has started in it (it then holds it as its cwd).
  using parent = isDir ? null : ws.open(path.posix.dirname(target.rel), { expect: "dir" });
  if (parent !== null && !sameObject(parent.statEntry(name), target.stat)) throw new PathChanged(target.rel);
  const dir = parent ?? target;
  const rg = await runner.start({ args: args(name), cwd: dir.childCwd(), signal });
  return { rg, rel: dir.rel, abs: dir.abs, name };
}

async function searchOpened(
  ws: Workspace,
  target: Handle,
  runner: RipgrepRunner,
  options: SearchOptions,
): Promise<Paged<SearchResult>> {
  const isDir = target.stat.kind === "dir";
  // What rg cannot search safely: a FIFO would make it wait for a writer, a device would be read.
  if (!isDir && target.stat.kind !== "file") {
    throw new ToolError("NOT_A_FILE", `${target.rel} is a special file (device, FIFO or socket)`, {
      hint: "search_text searches regular files and directories.",
      details: { path: target.rel },
    });
  }
  const filter = isDir && options.globs.length > 0 ? compileGlobs(options.globs) : null;
  const prefilter = filter ? prefilterArgs(filter) : [];
  const started = await startIn(ws, target, runner, (name) => searchArgs(options, name, prefilter), options.signal);
  await using rg = started.rg;
  const reported = {
    rootAbs: started.abs,
    prefix: started.rel === "." ? "" : `${started.rel}/`,
    // A single file is searched whatever the globs and its name say.
    wanted: isDir ? wantedFiles(filter, options.includeHidden) : () => true,
  };
  const collector = new MatchCollector({ ...reported, ...collecting(options) });
  // Only a later page (paging) reads ahead: a first one reads no further than it needs, as agents often stop there.
  const ahead = options.keep && options.page.after !== null ? new SearchReadAhead(reported) : null;
  await collectMatches(rg, collector, ahead);
  const outcome = await rg.finish();
  // Without Landlock a directory swapped for a symlink mid-run could redirect rg: refuse moved results (racy).
  if (!rg.confined) target.revalidate();
  // rg stops before searching anything only when it cannot use its arguments.
  if (outcome.code === 2 && !collector.sawMessage) throw rgFailure(outcome.stderr, target.rel);
  if (options.signal?.aborted) throw new ToolError("TIMEOUT", "search_text was cancelled");
  const warnings = rgWarnings(outcome.stderr, reported.prefix, started.name);
  // Kept only when rg warned of nothing: a page read from it has no warning a new run would have given.
  const kept = warnings.length === 0 ? ahead?.kept(collector, !outcome.killed) : null;
  if (kept) options.keep!.put(kept);
  return pageOf(collector, options, warnings);
}

function collecting(options: SearchOptions): Omit<MatchCollectorOptions, "rootAbs" | "prefix" | "wanted"> {
  return {
    context: options.context,
    maxResults: options.maxResults,
    after: options.page.after,
    trimTo: lineBytes(options, options.page.maxChars),
  };
}

/** Feeds rg's JSON lines to `collector` (and `ahead`, which may read on past the page); ends rg once they are done. */
async function collectMatches(rg: RipgrepProcess, collector: MatchCollector, ahead: SearchReadAhead | null) {
  const take = ahead
    ? (line: string) => ahead.push(line, collector)
    : (line: string) => (collector.add(JSON.parse(line) as RgMessage), !collector.done);
  let more = true;
  // Uncapped: a message is parsed whole (rg ends each with a newline, the last too).
  const lines = new RecordSplitter("\n", Infinity, (line) => {
    if (more) more = take(line);
  });
  for await (const chunk of rg.chunks()) {
    lines.push(chunk);
    if (!more) {
      rg.kill();
      break;
    }
  }
}

/** Why rg stopped before searching anything: with a confined, existing path, the pattern; otherwise INTERNAL. */
function rgFailure(stderr: string, rel: string): ToolError {
  const reason = stderr.trim().replace(/^rg: /, "");
  if (/regex|pattern|literal|syntax|look-around|backreference/i.test(reason)) {
    return new ToolError("INVALID_ARGUMENT", `pattern is not a valid regex: ${reason}`, {
      hint:
        "Fix the regex (Rust regex syntax: no look-around or backreferences), or pass regex:false for literal text.",
      details: { field: "pattern", reason },
    });
  }
  return new ToolError("INTERNAL", `rg failed: ${reason}`, { details: { path: rel, stderr: reason } });
}

/** The page of the collected matches, rg's `warnings` followed by the note of a trim below max_line_bytes. */
function pageOf(collector: MatchCollector, options: SearchOptions, warnings: string[]): Paged<SearchResult> {
  const { matches } = collector;
  const trimTo = lineBytes(options, options.page.maxChars);
  const trimmed = trimTo < options.maxLineBytes
    ? [
      `lines are trimmed to ${trimTo} bytes (not max_line_bytes ${options.maxLineBytes}) so that a match ` +
      `with its context fits the result ceiling`,
    ]
    : [];
  return fitPage(matches, options.page, {
    more: collector.capped,
    start: collector.beforePage,
    positionAfter: (match) => ({ p: match.path, l: match.line }),
    build: (kept) => ({
      matches: kept,
      files_matched: new Set(kept.map((match) => match.path)).size,
      truncated: false,
      stopped_early: collector.done,
      warnings: [...warnings, ...trimmed],
      next_cursor: null,
    }),
    // Room for files_matched's digits, which the empty page measured has one of.
    extraChars: String(matches.length).length,
  });
}
