import { z } from "../zod.ts";
import { ToolError } from "../errors.ts";
import type { GitService } from "./service.ts";
import { gitFailure, gitMessage } from "./runner.ts";
import { checkRevision, readRepoAt, TIP } from "./repo.ts";
import { RecordSplitter } from "../text/records.ts";
import { fitCount, jsonChars } from "../paging/budget.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";

/** Largest max_count accepted. */
export const MAX_LOG_COUNT = 500;
/** Characters (UTF-16 code units) kept of a subject or body; longer ones are cut and flagged. */
export const MAX_MESSAGE_CHARS = 4096;

/** The fields of one commit, each NUL-terminated; `-z` adds an empty record after each commit. */
export const COMMIT_FORMAT = ["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%s", "%b"].map((f) => `${f}%x00`)
  .join("");
const FIELDS = 10;
const BODY = 9;

/** One commit; a person's time is strict ISO 8601 with their own offset. */
export interface Commit {
  sha: string;
  parents: string[];
  author: { name: string; email: string; time: string };
  committer: Commit["author"];
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

/** About how many bytes of commits one read-ahead keeps: some 25,000 commits with one-line messages. */
export const READ_AHEAD_BYTES = 16 * 1024 * 1024;

/** Commits a page read ahead from the pinned tips, kept for the pages after it. */
export interface KeptLog {
  tips: string[];
  /** How many commits of the history precede the first kept one. */
  start: number;
  commits: Commit[];
  /** The history ends with the last kept commit. */
  complete: boolean;
  bytes: number;
}

/** Where a log resumes: the pinned tips (rev-parse output), commits before the page, the last commit shown. */
export type LogPosition = { t: string[]; s: number; h: string };

const SHA = /^[0-9a-f]{40,64}$/;

/** The shape of a resume position. */
export const LOG_POSITION = z.strictObject({
  t: z.array(z.string().regex(TIP)).min(1),
  s: z.int().min(1),
  h: z.string().regex(SHA),
});

/** Options of {@linkcode gitLog}. */
export interface LogOptions {
  maxCount: number;
  rev?: string;
  path?: string;
  since?: string;
  until?: string;
  author?: string;
  grep?: string;
  page: PageRequest<LogPosition>;
  keep?: SnapshotSlot<KeptLog>;
  signal?: AbortSignal;
}

/** A page of commits, newest first. */
export interface GitLog {
  commits: Commit[];
  truncated: boolean;
  next_cursor: string | null;
}

function filterArg(field: "since" | "until" | "author" | "grep", value: string | undefined): string[] {
  if (value === undefined) return [];
  if (value.includes("\0")) {
    throw new ToolError("INVALID_ARGUMENT", `${field}: contains a NUL byte`, { details: { field } });
  }
  return [`--${field}=${value}`];
}

/**
 * git_log, one page: commits from one NUL-separated `--format`, sliced from what the session kept, else read by git. A
 * first page not holding the whole history pins its tips (rev-parse, in the run confirming the repository) so new
 * commits do not shift later pages; a later page logs from them with `--skip`, checking it resumes at the last shown.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * await gitLog(git, { maxCount: 5, path: "src", page: { after: null, encode: JSON.stringify, maxChars: 48_000 } });
 * ```
 */
export async function gitLog(git: GitService, options: LogOptions): Promise<Paged<GitLog>> {
  const maxCount = Math.min(options.maxCount, MAX_LOG_COUNT);
  const after = options.page.after;
  const kept = after === null ? undefined : options.keep?.get();
  const fromKept = kept === undefined ? null : keptPage(kept, after!, maxCount, options.page);
  if (fromKept !== null) return fromKept;
  const read = await readLog(git, options, maxCount);
  const page = logPage(read.commits, after, maxCount, options.page, read.tips);
  if (page.data.next_cursor !== null) {
    options.keep?.put({ ...read, tips: after?.t ?? read.tips, start: after === null ? 0 : after.s - 1 });
  }
  return page;
}

// The page after `after` from `commits` (on a later page led by the previous page's last): at most `maxCount`.
function logPage(
  commits: Commit[],
  after: LogPosition | null,
  maxCount: number,
  page: PageRequest<LogPosition>,
  pinned: string[],
): Paged<GitLog> {
  if (after !== null) {
    if (commits[0]?.sha !== after.h) {
      throw new ToolError("INVALID_ARGUMENT", "cursor: the history changed while its first page was read", {
        hint: "Call git_log again without cursor to start from the beginning.",
        details: { field: "cursor" },
      });
    }
    commits = commits.slice(1);
  }
  const more = commits.length > maxCount;
  const candidates = commits.slice(0, maxCount);
  const start = after?.s ?? 0;
  const build = (commits: Commit[]): GitLog => ({ commits, truncated: false, next_cursor: null });
  // A first page that holds the whole history needs no cursor, so no pin (a later page has its cursor's).
  const whole = () =>
    !more && fitCount(candidates, page.maxChars, { fixed: jsonChars(build([])), more }) === candidates.length;
  const tips = after?.t ?? (candidates.length === 0 || whole() ? [] : pinned);
  return fitPage(candidates, page, {
    more,
    start,
    positionAfter: (commit, i) => ({ t: tips, s: start + i + 1, h: commit.sha }),
    build,
  });
}

// The page from the kept commits if they hold it (else null: run git): read from the cursor's tips, from the previous
// page's last commit on, with all git would give this page (`maxCount` + 1, or the history's end) or more than the
// ceiling lets it show (fitCount counts whole items from the front, so git's longer list is cut at the same commit).
function keptPage(
  kept: KeptLog,
  after: LogPosition,
  maxCount: number,
  page: PageRequest<LogPosition>,
): Paged<GitLog> | null {
  const from = after.s - 1 - kept.start;
  if (kept.tips.join(" ") !== after.t.join(" ") || from < 0 || from >= kept.commits.length) return null;
  const commits = kept.commits.slice(from, from + maxCount + 2);
  const known = kept.complete || commits.length === maxCount + 2;
  const answer = logPage(commits, after, maxCount, page, after.t);
  return known || answer.data.commits.length < commits.length - 1 ? answer : null;
}

// A first page reads `maxCount` + 1 commits; a later one four times as many as precede it (at least `maxCount` + 2):
// `--skip` walks every earlier commit, so fourfold growth walks a history paged to its end a few times, not once per
// page (doubling measured 1.8x slower on 10,000 commits).
async function readLog(
  git: GitService,
  options: LogOptions,
  maxCount: number,
): Promise<Omit<KeptLog, "start">> {
  const after = options.page.after;
  const skip = after === null ? 0 : after.s - 1;
  const count = after === null ? maxCount + 1 : Math.max(maxCount + 2, options.keep === undefined ? 0 : 4 * after.s);
  let bytes = 0;
  const { run, consumer: parser, tips } = await readRepoAt(git, options.path, {
    allowMissing: true,
    signal: options.signal,
    pin: after === null ? options.rev ?? "HEAD" : undefined,
  }, (repo, target) => {
    const parser = new CommitParser();
    const args = [
      "log",
      "-z",
      `--format=tformat:${COMMIT_FORMAT}`,
      ...(skip > 0 ? [`--skip=${skip}`] : []),
      `--max-count=${count}`,
      "--no-color",
      ...filterArg("since", options.since),
      ...filterArg("until", options.until),
      ...filterArg("author", options.author),
      ...filterArg("grep", options.grep),
      "--end-of-options",
      ...(after !== null ? after.t : options.rev === undefined ? [] : [checkRevision(options.rev, "rev")]),
      "--",
      ...(target === null ? repo.scope() : [repo.toGit(target)]),
    ];
    const onStdout = (chunk: Uint8Array) => {
      parser.push(chunk);
      bytes += 2 * chunk.length;
      // Past the bound, git stops once this page has what it needs (its first commit, maxCount and one more).
      return !(bytes > READ_AHEAD_BYTES && parser.commits.length >= maxCount + 2);
    };
    return { args, consumer: parser, onStdout };
  });
  // Each commit's objects and strings: about 400 bytes besides its text.
  const kept = (commits: Commit[], complete: boolean) => ({
    commits,
    complete,
    bytes: bytes + 400 * commits.length,
    tips,
  });
  if (run.stopped) return kept(parser.commits, false);
  if (run.code !== 0) {
    if (options.rev === undefined && after === null && /does not have any commits yet/.test(run.stderr)) {
      return kept([], true);
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
  return kept(commits, commits.length < count);
}
