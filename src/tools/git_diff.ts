import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const gitDiffTool = defineTool({
  name: "git_diff",
  title: "Git diff",
  description: "Unstaged (default) or staged diff, or a revision range, as per-file stats plus bounded unified text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    staged: z.boolean().default(false).describe(
      "Diff the index against HEAD instead of the worktree against the index.",
    ),
    paths: z.array(z.string()).max(256).optional().describe("Limit to these paths."),
    context: z.int().min(0).max(100).default(3).describe("Context lines."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Bound on the unified diff text."),
    rev: z.string().optional().describe('A revision or range, e.g. "HEAD~3" or "main..feature".'),
  }),
  output: z.object({
    files: z.array(z.object({
      path: z.string(),
      old_path: z.string().nullable(),
      status: z.string(),
      added: z.int().nullable(),
      removed: z.int().nullable(),
      binary: z.boolean(),
    })),
    diff: z.string(),
    truncated: z.boolean(),
    total_bytes: z.int(),
  }),
  handler: () => notImplemented("git_diff"),
});
