import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const gitBlameTool = defineTool({
  name: "git_blame",
  title: "Git blame",
  description: "Per-line attribution (sha, author, time, summary) from git blame --porcelain, for a line range.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().min(1).describe("File, relative to the workspace root."),
    start_line: z.int().min(1).optional().describe("First line (1-based)."),
    end_line: z.int().min(1).optional().describe("Last line, inclusive."),
    rev: z.string().optional().describe("Blame as of this revision."),
  }),
  output: z.object({
    path: z.string(),
    lines: z.array(z.object({
      line: z.int(),
      sha: z.string(),
      author: z.string(),
      time: z.string(),
      summary: z.string(),
      text: z.string(),
    })),
    truncated: z.boolean(),
  }),
  handler: () => notImplemented("git_blame"),
});
