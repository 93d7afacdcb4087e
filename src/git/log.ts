/**
 * git_log: commits as structured records from one NUL-separated
 * `--format`, with filters, a count cap and bounded messages.
 *
 * @example
 * const log = await gitLog(git, { maxCount: 20, author: "Ada" });
 * log.commits[0].author; // { name: "Ada", email: "ada@example.org", time: "2024-05-01T10:00:00+02:00" }
 */
import { ToolError } from "../errors.ts";
import type { GitService } from "./service.ts";
import { gitFailure, gitMessage } from "./runner.ts";
import { checkRevision, readRepoAt } from "./repo.ts";
import { RecordSplitter } from "./records.ts";

/** Largest max_count accepted. */
export const MAX_LOG_COUNT = 500;
/** Characters (UTF-16 code units) kept of a subject or body; longer ones are cut and flagged. */
export const MAX_MESSAGE_CHARS = 4096;

/** The fields of one commit, each NUL-terminated; `-z` adds an empty record after each commit. */
export const COMMIT_FORMAT = ["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%s", "%b"].map((f) => `${f}%x00`)
  .join("");
const FIELDS = 10;
const BODY = 9;

/** Name, email and strict ISO 8601 time with the person's own offset. */
export interface Person {
  name: string;
  email: string;
  time: string;
}

/** One commit. */
export interface Commit {
  sha: string;
  parents: string[];
  author: Person;
  committer: Person;
  subject: string;
  body: string;
  body_truncated: boolean;
}

/** Streaming parser of {@linkcode COMMIT_FORMAT} output (with `-z`). */
export class CommitParser {
  readonly commits: Commit[] = [];
  #fields: string[] = [];
  #bodyCut = false;
  readonly #split = new RecordSplitter("\0", MAX_MESSAGE_CHARS, (record, cut) => this.#record(record, cut));

  push(chunk: Uint8Array): void {
    this.#split.push(chunk);
  }

  end(): Commit[] {
    this.#split.end();
    return this.commits;
  }

  #record(record: string, cut: boolean): void {
    if (this.#fields.length === FIELDS) {
      // The empty separator record after a commit.
      const [sha, parents, an, ae, at, cn, ce, ct, subject, body] = this.#fields;
      this.commits.push({
        sha,
        parents: parents.length > 0 ? parents.split(" ") : [],
        author: { name: an, email: ae, time: at },
        committer: { name: cn, email: ce, time: ct },
        subject,
        body: body.replace(/\n+$/, ""),
        body_truncated: this.#bodyCut,
      });
      this.#fields = [];
      this.#bodyCut = false;
      return;
    }
    if (this.#fields.length === BODY) this.#bodyCut = cut;
    this.#fields.push(record);
  }
}

/** Options of {@linkcode gitLog}. */
export interface LogOptions {
  maxCount: number;
  rev?: string;
  path?: string;
  since?: string;
  until?: string;
  author?: string;
  grep?: string;
  signal?: AbortSignal;
}

/** The answer: commits newest first, and whether more matched than max_count. */
export interface GitLog {
  commits: Commit[];
  truncated: boolean;
}

function filterArg(flag: string, value: string | undefined, field: string): string[] {
  if (value === undefined) return [];
  if (value.includes("\0")) {
    throw new ToolError("INVALID_ARGUMENT", `${field}: contains a NUL byte`, { details: { field } });
  }
  return [`--${flag}=${value}`];
}

/**
 * Runs git log with the tool's filters; asks for one commit more than
 * max_count to tell whether the history goes on.
 *
 * @example
 * await gitLog(git, { maxCount: 5, rev: "main..feature", path: "src" });
 */
export async function gitLog(git: GitService, options: LogOptions): Promise<GitLog> {
  const maxCount = Math.min(options.maxCount, MAX_LOG_COUNT);
  const { run, consumer: parser } = await readRepoAt(git, options.path, {
    allowMissing: true,
    signal: options.signal,
  }, (repo, target) => {
    const parser = new CommitParser();
    const args = [
      "log",
      "-z",
      `--format=tformat:${COMMIT_FORMAT}`,
      `--max-count=${maxCount + 1}`,
      "--no-color",
      ...filterArg("since", options.since, "since"),
      ...filterArg("until", options.until, "until"),
      ...filterArg("author", options.author, "author"),
      ...filterArg("grep", options.grep, "grep"),
      "--end-of-options",
      ...(options.rev === undefined ? [] : [checkRevision(options.rev, "rev")]),
      "--",
      ...(target === null ? repo.scope() : [repo.toGit(target)]),
    ];
    return { args, consumer: parser, onStdout: (chunk: Uint8Array) => parser.push(chunk) };
  });
  if (run.code !== 0) {
    if (options.rev === undefined && /does not have any commits yet/.test(run.stderr)) {
      return { commits: [], truncated: false };
    }
    if (/regular expression|regex/i.test(run.stderr)) {
      throw new ToolError("INVALID_ARGUMENT", `author/grep: ${gitMessage(run.stderr)}`, {
        hint: "author and grep are git basic regular expressions; escape [ ] * . ^ $ \\ to match them literally.",
        details: { field: options.grep !== undefined ? "grep" : "author", stderr: run.stderr },
      });
    }
    throw gitFailure(run, "log");
  }
  const commits = parser.end();
  return { commits: commits.slice(0, maxCount), truncated: commits.length > maxCount };
}
