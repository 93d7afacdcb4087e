import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const gitStatusTool = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Structured working-tree status from git status --porcelain=v2: branch, upstream, ahead/behind, detached HEAD, staged/unstaged/untracked/conflicted entries with rename origins.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().optional().describe("Limit to this path (relative to the workspace root)."),
    include_ignored: z.boolean().default(false).describe("Also list ignored files."),
  }),
  output: z.object({
    branch: z.string().nullable(),
    head: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: z.int().nullable(),
    behind: z.int().nullable(),
    detached: z.boolean(),
    entries: z.array(z.object({
      path: z.string(),
      index: z.string(),
      worktree: z.string(),
      orig_path: z.string().nullable(),
      type: z.enum(["changed", "renamed", "copied", "unmerged", "untracked", "ignored"]),
      submodule: z.boolean(),
    })),
    clean: z.boolean(),
  }),
  handler: () => notImplemented("git_status"),
});
