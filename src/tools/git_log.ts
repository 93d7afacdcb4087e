import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gitLog, MAX_LOG_COUNT, MAX_MESSAGE_CHARS } from "../git/log.ts";

/** Name, email and ISO 8601 time; shared with git_show. */
export const personSchema = z.object({ name: z.string(), email: z.string(), time: z.string() });

export const gitLogTool = defineTool({
  name: "git_log",
  title: "Git log",
  description:
    "Structured commit history (newest first) with filters by revision, path, date, author and message (author and grep are git regular expressions).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    max_count: z.int().min(1).max(MAX_LOG_COUNT).default(20).describe("Maximum commits."),
    rev: z.string().optional().describe('Revision or range to start from (default HEAD), e.g. "main..feature".'),
    path: z.string().optional().describe("Only commits touching this path."),
    since: z.string().optional().describe('Only commits after this date (git date syntax, e.g. "2024-01-01").'),
    until: z.string().optional().describe("Only commits before this date."),
    author: z.string().optional().describe("Only commits whose author name or email matches."),
    grep: z.string().optional().describe("Only commits whose message matches."),
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
    truncated: z.boolean().describe("More commits match than max_count."),
  }),
  handler: async (args, ctx) => {
    const log = await gitLog(ctx.services.git, {
      maxCount: args.max_count,
      rev: args.rev,
      path: args.path,
      since: args.since,
      until: args.until,
      author: args.author,
      grep: args.grep,
      signal: ctx.signal,
    });
    if (log.commits.length === 0) return { text: "No commits match.", data: { ...log } };
    const lines = log.commits.map((commit) =>
      `${commit.sha.slice(0, 12)} ${commit.author.time.slice(0, 10)} ${commit.author.name}: ${commit.subject}` +
      (commit.parents.length > 1 ? " (merge)" : "")
    );
    if (log.truncated) lines.push(`[… more commits; raise max_count (up to ${MAX_LOG_COUNT}) or narrow the range]`);
    return { text: lines.join("\n"), data: { ...log } };
  },
});
