/**
 * git_blame: per-line attribution from `git blame --porcelain` for a line
 * range, at most {@linkcode MAX_BLAME_LINES} lines per call.
 *
 * @example
 * const blame = await gitBlame(git, { path: "src/a.ts", startLine: 10, endLine: 20 });
 * blame.lines[0]; // { line: 10, sha: "3f2a…", author: "Ada", time: "2024-05-01T10:00:00+02:00", summary, text }
 */
import { ToolError } from "../errors.ts";
import { openReadable, toRelative } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { closeFd } from "../os/fs_at.ts";
import { gitFailure } from "./runner.ts";
import { checkRevision, type GitRepo, openRepoAt } from "./repo.ts";
import { RecordSplitter } from "./records.ts";

/** Most lines one call returns; page with start_line. */
export const MAX_BLAME_LINES = 2000;
/** Characters (UTF-16 code units) kept of one line's text. */
export const MAX_BLAME_LINE_CHARS = 4096;

/** One attributed line. */
export interface BlameLine {
  line: number;
  sha: string;
  author: string;
  time: string;
  summary: string;
  text: string;
}

/** The answer. */
export interface GitBlame {
  path: string;
  lines: BlameLine[];
  truncated: boolean;
  next_start_line: number | null;
}

/** Options of {@linkcode gitBlame}. */
export interface BlameOptions {
  path: string;
  startLine?: number;
  endLine?: number;
  rev?: string;
  signal?: AbortSignal;
}

/**
 * An epoch time and a `+hhmm` zone as strict ISO 8601 with that offset.
 *
 * @example
 * isoTime(0, "+0130"); // "1970-01-01T01:30:00+01:30"
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
      const commit = this.#commits.get(current.sha);
      this.lines.push({
        line: current.line,
        sha: current.sha,
        author: commit?.author ?? "",
        time: isoTime(commit?.time ?? 0, commit?.zone ?? "+0000"),
        summary: commit?.summary ?? "",
        text: text.slice(1),
      });
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
    const space = text.indexOf(" ");
    const key = space === -1 ? text : text.slice(0, space);
    const value = space === -1 ? "" : text.slice(space + 1);
    if (key === "author") commit.author = value;
    else if (key === "author-time") commit.time = Number(value);
    else if (key === "author-tz") commit.zone = value;
    else if (key === "summary") commit.summary = value;
  }
}

/**
 * Blames a line range of a file, in the work tree or at `rev`.
 *
 * @example
 * await gitBlame(git, { path: "README.md", rev: "HEAD~3" });
 */
export async function gitBlame(git: GitService, options: BlameOptions): Promise<GitBlame> {
  const ws = git.ws;
  const start = options.startLine ?? 1;
  if (options.endLine !== undefined && options.endLine < start) {
    throw new ToolError("INVALID_ARGUMENT", `end_line: ${options.endLine} is before start_line ${start}`, {
      details: { field: "end_line" },
    });
  }
  const rev = options.rev === undefined ? [] : [checkRevision(options.rev, "rev")];
  const { repo, target } = await openRepoAt(git, options.path, {
    allowMissing: options.rev !== undefined,
    readsWorkTree: options.rev === undefined,
    signal: options.signal,
  });
  const abs = target!;
  const rel = repo.fromCwd(repo.toGit(abs)) ?? options.path;
  // The work tree's version is opened here, by fd, and given to git as its stdin: git itself would open the path
  // and follow a directory swapped for a symlink since it was confined.
  const worktree = options.rev === undefined ? await openReadable(ws, toRelative(ws, abs)) : null;
  try {
    if (worktree === null && (await Deno.stat(abs).catch(() => null))?.isDirectory) {
      throw new ToolError("NOT_A_FILE", `${rel} is a directory`, { details: { path: rel } });
    }
    const source = worktree ? { args: ["--contents", "-"], stdinFd: worktree.fd } : { args: rev };
    return await blameRange(repo, abs, rel, start, options, source);
  } finally {
    if (worktree) closeFd(worktree.fd);
  }
}

async function blameRange(
  repo: GitRepo,
  abs: string,
  rel: string,
  start: number,
  options: BlameOptions,
  source: { args: string[]; stdinFd?: number },
): Promise<GitBlame> {
  const wanted = options.endLine === undefined
    ? MAX_BLAME_LINES
    : Math.min(options.endLine - start + 1, MAX_BLAME_LINES);
  // One line more than returned tells whether the file goes on past the cap.
  const asked = options.endLine === undefined || options.endLine - start + 1 > MAX_BLAME_LINES ? wanted + 1 : wanted;
  const parser = new BlameParser();
  const run = await repo.run(
    [
      "blame",
      "--porcelain",
      "--no-textconv",
      // Ignores no revisions: a blame.ignoreRevsFile list would attribute lines to other commits than git log shows.
      "--ignore-revs-file=",
      `-L${start},+${asked}`,
      ...source.args,
      "--",
      repo.toGit(abs),
    ],
    { onStdout: (chunk) => parser.push(chunk), signal: options.signal, stdinFd: source.stdinFd },
  );
  if (run.code !== 0) {
    const lines = /has only (\d+) lines?/.exec(run.stderr);
    if (lines && Number(lines[1]) === 0 && options.startLine === undefined) {
      return { path: rel, lines: [], truncated: false, next_start_line: null };
    }
    if (lines) {
      throw new ToolError("INVALID_ARGUMENT", `start_line: ${rel} has only ${lines[1]} lines`, {
        details: { field: "start_line", line_count: Number(lines[1]) },
      });
    }
    // Only a plain "no such path" is NOT_FOUND; one caused by an earlier failure (an unreadable object) is not.
    if (/^fatal: no such path/.test(run.stderr)) {
      throw new ToolError("NOT_FOUND", `${rel} does not exist${options.rev ? ` at ${options.rev}` : " in HEAD"}`, {
        details: { path: rel, stderr: run.stderr },
      });
    }
    throw gitFailure(run, "blame");
  }
  const all = parser.end().sort((a, b) => a.line - b.line);
  const lines = all.slice(0, wanted);
  const truncated = all.length > wanted;
  return { path: rel, lines, truncated, next_start_line: truncated ? start + wanted : null };
}
