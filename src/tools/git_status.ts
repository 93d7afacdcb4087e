import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gitStatus, MAX_STATUS_ENTRIES, type StatusEntry } from "../git/status.ts";

function describe(entry: StatusEntry): string {
  const xy = entry.type === "untracked" ? "??" : entry.type === "ignored" ? "!!" : `${entry.index}${entry.worktree}`;
  const from = entry.orig_path === null ? "" : ` (from ${entry.orig_path})`;
  const tags = [entry.type === "unmerged" ? "conflict" : "", entry.submodule ? "submodule" : ""].filter(Boolean);
  return `${xy} ${entry.path}${from}${tags.length > 0 ? `  [${tags.join(", ")}]` : ""}`;
}

export const gitStatusTool = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Structured working-tree status from git status --porcelain=v2: branch, upstream, ahead/behind, detached HEAD, staged/unstaged/untracked/conflicted entries with rename origins. index/worktree are git's XY letters ('.' = unchanged).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
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
    total_entries: z.int().describe(`Entries matched; at most ${MAX_STATUS_ENTRIES} are listed.`),
    truncated: z.boolean(),
  }),
  handler: async (args, ctx) => {
    const status = await gitStatus(ctx.services.git, {
      path: args.path,
      includeIgnored: args.include_ignored,
      signal: ctx.signal,
    });
    const where = status.detached
      ? `HEAD detached at ${status.head?.slice(0, 12) ?? "?"}`
      : `On branch ${status.branch ?? "?"}${status.head === null ? " (no commits yet)" : ""}`;
    const tracking = status.upstream === null
      ? ""
      : `, tracking ${status.upstream}${
        status.ahead === null ? "" : ` (ahead ${status.ahead}, behind ${status.behind})`
      }`;
    const lines = [`${where}${tracking}`, status.clean ? "Working tree clean." : `${status.total_entries} entries:`];
    lines.push(...status.entries.map(describe));
    if (status.truncated) lines.push(`[… ${status.total_entries - status.entries.length} more entries not listed]`);
    return { text: lines.join("\n"), data: { ...status } };
  },
});
