import { z } from "../zod.ts";
import { defineTool, nextPageCall, pagedCall } from "./tool.ts";
import { type GitLog, gitLog, type KeptLog, LOG_POSITION, MAX_LOG_COUNT, MAX_MESSAGE_CHARS } from "../git/log.ts";
import type { Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Name, email and ISO 8601 time; shared with git_show. */
export const personSchema = z.object({ name: z.string(), email: z.string(), time: z.string() });

function render(page: Paged<GitLog>, given: Readonly<Record<string, unknown>>): string {
  const { data } = page;
  if (data.commits.length === 0) return page.start > 0 ? "No more commits." : "No commits match.";
  return layoutText({
    header: (shown) =>
      `commits ${page.start + 1}-${page.start + shown}, newest first` +
      (shown < data.commits.length || data.truncated ? " (more follow)" : ""),
    items: data.commits.map((commit) =>
      `${commit.sha.slice(0, 12)} ${commit.author.time.slice(0, 10)} ${commit.author.name}: ${commit.subject}` +
      (commit.parents.length > 1 ? " (merge)" : "")
    ),
    next: nextPageCall("git_log", given, page),
  }).text;
}

export const gitLogTool = defineTool({
  name: "git_log",
  title: "Git log",
  description:
    "Structured commit history (newest first) with filters by revision, path, date, author and message (author and grep are git regular expressions). Pages: pass next_cursor as cursor, with the same other arguments, for older commits.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    max_count: z.int().min(1).max(MAX_LOG_COUNT).default(20).describe(
      "Most commits in a page (the result ceiling may end it sooner).",
    ),
    rev: z.string().optional().describe('Revision or range to start from (default HEAD), e.g. "main..feature".'),
    path: z.string().optional().describe("Only commits touching this path."),
    since: z.string().optional().describe('Only commits after this date (git date syntax, e.g. "2024-01-01").'),
    until: z.string().optional().describe("Only commits before this date."),
    author: z.string().optional().describe("Only commits whose author name or email matches."),
    grep: z.string().optional().describe("Only commits whose message matches."),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    commits: z.array(z.object({
      sha: z.string(),
      parents: z.array(z.string()),
      author: personSchema,
      committer: personSchema,
      subject: z.string(),
      body: z.string().describe(`At most ${MAX_MESSAGE_CHARS} characters.`),
      body_truncated: z.boolean(),
    })),
    truncated: z.boolean().describe("More commits follow this page."),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const page = await gitLog(ctx.services.git, {
      maxCount: args.max_count,
      rev: args.rev,
      path: args.path,
      since: args.since,
      until: args.until,
      author: args.author,
      grep: args.grep,
      ...pagedCall(ctx, "git_log", args, ["max_count"], LOG_POSITION, (kept: KeptLog) => kept.bytes),
      signal: ctx.signal,
    });
    return { text: render(page, ctx.arguments), data: { ...page.data } };
  },
});
