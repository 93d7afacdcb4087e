import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

const person = z.object({ name: z.string(), email: z.string(), time: z.string() });

export const gitLogTool = defineTool({
  name: "git_log",
  title: "Git log",
  description: "Structured commit history with filters by revision, path, date, author and message.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    max_count: z.int().min(1).max(500).default(20).describe("Maximum commits."),
    rev: z.string().optional().describe("Revision or range to start from (default HEAD)."),
    path: z.string().optional().describe("Only commits touching this path."),
    since: z.string().optional().describe("Only commits after this date (git date syntax)."),
    until: z.string().optional().describe("Only commits before this date."),
    author: z.string().optional().describe("Only commits whose author matches."),
    grep: z.string().optional().describe("Only commits whose message matches."),
  }),
  output: z.object({
    commits: z.array(z.object({
      sha: z.string(),
      parents: z.array(z.string()),
      author: person,
      committer: person,
      subject: z.string(),
      body: z.string(),
      body_truncated: z.boolean(),
    })),
    truncated: z.boolean(),
  }),
  handler: () => notImplemented("git_log"),
});
