import { z } from "../zod.ts";
import { ToolError } from "../errors.ts";
import type { GitService } from "./service.ts";

import { gitFailure } from "./runner.ts";
import { checkRevision, openRepoAt } from "./repo.ts";
import { RecordSplitter } from "../text/records.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import { jsonChars } from "../paging/budget.ts";

/** Most lines a page may ask for. */
export const MAX_BLAME_LINES = 2000;
/** Characters (UTF-16 code units) kept of one line's text. */
export const MAX_BLAME_LINE_CHARS = 4096;

/** One attributed line; its commit's details are in the page's `commits`, once per commit. */
export interface BlameLine {
  line: number;
  sha: string;
  text: string;
}

/** What a page says once of each commit its lines name. */
export interface BlameCommit {
  author: string;
  /** ISO 8601 author time, in the author's zone. */
  time: string;
  summary: string;
}

/** A page of the answer. */
export interface GitBlame {
  path: string;
  lines: BlameLine[];
  /** The commits of this page's lines, by full sha (the uncommitted work tree's is all zeros). */
  commits: Record<string, BlameCommit>;
  truncated: boolean;
  next_start_line: number | null;
  next_cursor: string | null;
}

/** The shape of a resume position: at this line. */
export const BLAME_POSITION = z.strictObject({ l: z.int().min(1) });

/** Options of {@linkcode gitBlame}. */
export interface BlameOptions {
  path: string;
  startLine?: number;
  endLine?: number;
  limit: number;
  rev?: string;
  page: PageRequest<z.infer<typeof BLAME_POSITION>>;
  signal?: AbortSignal;
}

/**
 * An epoch time and a `+hhmm` zone as strict ISO 8601 with that offset.
 * @example
 * ```ts
 * isoTime(0, "+0130"); // "1970-01-01T01:30:00+01:30"
 * ```
 */
export function isoTime(epochSeconds: number, zone: string): string {
  const match = /^([+-])(\d\d)(\d\d)$/.exec(zone);
  const sign = match?.[1] === "-" ? -1 : 1;
  const minutes = match ? sign * (Number(match[2]) * 60 + Number(match[3])) : 0;
  const local = new Date((epochSeconds + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${match ? `${match[1]}${match[2]}:${match[3]}` : "+00:00"}`;
}

/** Streaming parser of `git blame --porcelain`. */
export class BlameParser {
  readonly lines: BlameLine[] = [];
  readonly #commits = new Map<string, { author: string; time: number; zone: string; summary: string }>();
  #current: { sha: string; line: number } | null = null;
  readonly #split = new RecordSplitter("\n", MAX_BLAME_LINE_CHARS, (record) => this.#record(record));

  commitsOf(lines: readonly BlameLine[]): Record<string, BlameCommit> {
    const commits: Record<string, BlameCommit> = {};
    for (const { sha } of lines) {
      if (sha in commits) continue;
      // Every line's commit was set by the header that began it.
      const { author, time, zone, summary } = this.#commits.get(sha)!;
      commits[sha] = { author, time: isoTime(time, zone), summary };
    }
    return commits;
  }

  push(chunk: Uint8Array): void {
    this.#split.push(chunk);
  }

  end(): BlameLine[] {
    this.#split.end();
    return this.lines;
  }

  #record(text: string): void {
    if (text.startsWith("\t")) {
      const current = this.#current;
      if (!current) return;
      this.lines.push({ line: current.line, sha: current.sha, text: text.slice(1) });
      this.#current = null;
      return;
    }
    const header = /^([0-9a-f]{40,64}) \d+ (\d+)/.exec(text);
    if (header) {
      this.#current = { sha: header[1], line: Number(header[2]) };
      if (!this.#commits.has(header[1])) this.#commits.set(header[1], { author: "", time: 0, zone: "", summary: "" });
      return;
    }
    const commit = this.#current && this.#commits.get(this.#current.sha);
    if (!commit) return;
    const [key, ...words] = text.split(" ");
    const value = words.join(" ");
    if (key === "author") commit.author = value;
    else if (key === "author-time") commit.time = Number(value);
    else if (key === "author-tz") commit.zone = value;
    else if (key === "summary") commit.summary = value;
  }
}

/**
 * git_blame: a page of a line range of a file blamed (`git blame --porcelain`), in the work tree or at `rev`.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * await gitBlame(git, { path: "a.ts", limit: 120, page: { after: null, encode: JSON.stringify, maxChars: 48_000 } });
 * ```
 */
export async function gitBlame(git: GitService, options: BlameOptions): Promise<Paged<GitBlame>> {
  const first = options.startLine ?? 1;
  if (options.endLine !== undefined && options.endLine < first) {
    throw new ToolError("INVALID_ARGUMENT", `end_line: ${options.endLine} is before start_line ${first}`, {
      details: { field: "end_line" },
    });
  }
  const start = options.page.after?.l ?? first;
  const rev = options.rev === undefined ? [] : [checkRevision(options.rev, "rev")];
  const { repo, target } = await openRepoAt(git, options.path, {
    allowMissing: options.rev !== undefined,
    readsWorkTree: options.rev === undefined,
    signal: options.signal,
  });
  const abs = target!;
  const rel = repo.fromCwd(repo.toGit(abs)) ?? options.path;
  // The work tree's file goes to git on stdin, read through its handle: git would follow a swapped-in symlink.
  using worktree = options.rev === undefined ? git.ws.open(abs, { expect: "file" }) : null;
  if (worktree === null && (await Deno.stat(abs).catch(() => null))?.isDirectory) {
    throw new ToolError("NOT_A_FILE", `${rel} is a directory`, { details: { path: rel } });
  }
  const stdin = worktree ? await worktree.childStdin() : undefined;
  const limit = Math.min(options.limit, MAX_BLAME_LINES);
  const rangeLeft = options.endLine === undefined ? Infinity : options.endLine - start + 1;
  const wanted = Math.min(rangeLeft, limit);
  // One line more than a page tells whether the range goes on past it.
  const asked = rangeLeft > wanted ? wanted + 1 : wanted;
  const parser = new BlameParser();
  const args = [
    "blame",
    "--porcelain",
    "--no-textconv",
    // Ignores no revisions: a blame.ignoreRevsFile list would attribute lines to other commits than git log shows.
    "--ignore-revs-file=",
    `-L${start},+${asked}`,
    ...(worktree ? ["--contents", "-"] : rev),
    "--",
    repo.toGit(abs),
  ];
  const run = await repo.run(args, { onStdout: (chunk) => parser.push(chunk), signal: options.signal, stdin });
  const lines = run.code === 0 ? null : /has only (\d+) lines?/.exec(run.stderr);
  // An empty file has no line to blame: without a start_line asked for, that is an empty page.
  const emptyFile = lines !== null && Number(lines[1]) === 0 && options.startLine === undefined;
  if (run.code !== 0 && !emptyFile) {
    if (lines) {
      throw new ToolError("INVALID_ARGUMENT", `start_line: ${rel} has only ${lines[1]} lines`, {
        details: { field: "start_line", line_count: Number(lines[1]) },
      });
    }
    // Only a plain "no such path" is NOT_FOUND; one caused by an earlier failure (an unreadable object) is not.
    if (/^fatal: no such path/.test(run.stderr)) throw await notCommitted(abs, rel, options.rev, run.stderr);
    throw gitFailure(run, "blame");
  }
  const all = emptyFile ? [] : parser.end().sort((a, b) => a.line - b.line);
  const more = all.length > wanted;
  const candidates = all.slice(0, wanted);
  // A commit's details are in the page once: its first line there pays for them (key, value and a comma).
  const firstOfCommit = new Map<string, number>();
  candidates.forEach((line, i) => firstOfCommit.has(line.sha) || firstOfCommit.set(line.sha, i));
  const commitChars = (line: BlameLine, i: number) =>
    firstOfCommit.get(line.sha) === i ? jsonChars(parser.commitsOf([line])) - 1 : 0;
  return fitPage(candidates, options.page, {
    besides: commitChars,
    more,
    start: start - first,
    positionAfter: (line) => ({ l: line.line + 1 }),
    build: (lines, truncated) => ({
      path: rel,
      lines,
      commits: parser.commitsOf(lines),
      truncated,
      next_start_line: truncated ? lines[lines.length - 1].line + 1 : null,
      next_cursor: null,
    }),
    // next_start_line's digits, which the empty page measured has none of.
    extraChars: String(start + wanted).length,
  });
}

// NOT_FOUND for an uncommitted path; calling a work-tree file missing would send the agent to look for it.
async function notCommitted(abs: string, rel: string, rev: string | undefined, stderr: string): Promise<ToolError> {
  const at = rev === undefined ? "HEAD" : rev;
  const inWorkTree = (await Deno.lstat(abs).catch(() => null))?.isFile === true;
  if (!inWorkTree) {
    return new ToolError("NOT_FOUND", `${rel} does not exist at ${at}`, { details: { path: rel, stderr } });
  }
  const atRev = rev === undefined ? "" : ` at ${rev}`;
  return new ToolError("NOT_FOUND", `${rel} is not committed${atRev}: it is in the work tree, not in ${at}`, {
    hint: "git_blame attributes committed lines: read the file with read_file, or pass rev of a commit that has it " +
      `(git_log {"path":${JSON.stringify(rel)}} lists them).`,
    details: { path: rel, stderr },
  });
}
