import { z } from "../zod.ts";
import { defineTool, nextPageCall, pagedCall } from "./tool.ts";
import {
  type GitStatus,
  gitStatus,
  keptStatusBytes,
  MAX_STATUS_ENTRIES,
  STATUS_POSITION,
  type StatusEntry,
} from "../git/status.ts";
import type { Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Default entries per page: about 21,000 characters of JSON at ~105 per entry (docs/results.md). */
export const DEFAULT_STATUS_LIMIT = 200;

function describe(entry: StatusEntry): string {
  const xy = entry.type === "untracked" ? "??" : entry.type === "ignored" ? "!!" : `${entry.index}${entry.worktree}`;
  const from = entry.orig_path === null ? "" : ` (from ${entry.orig_path})`;
  const tags = [entry.type === "unmerged" ? "conflict" : "", entry.submodule ? "submodule" : ""].filter(Boolean);
  return `${xy} ${entry.path}${from}${tags.length > 0 ? `  [${tags.join(", ")}]` : ""}`;
}

function render(page: Paged<GitStatus>, given: Readonly<Record<string, unknown>>): string {
  const status = page.data;
  const where = status.detached
    ? `HEAD detached at ${status.head?.slice(0, 12) ?? "?"}`
    : `On branch ${status.branch ?? "?"}${status.head === null ? " (no commits yet)" : ""}`;
  const tracking = status.upstream === null
    ? ""
    : `, tracking ${status.upstream}${
      status.ahead === null ? "" : ` (ahead ${status.ahead}, behind ${status.behind})`
    }`;
  if (status.entries.length === 0) {
    return `${where}${tracking}\n${
      status.clean ? "Working tree clean." : `no more of ${status.total_entries} entries`
    }`;
  }
  return layoutText({
    header: (shown) =>
      `${where}${tracking}\nentries ${page.start + 1}-${page.start + shown} of ${status.total_entries}` +
      (status.clean ? " (ignored files only)" : ""),
    items: status.entries.map(describe),
    next: nextPageCall("git_status", given, page),
  }).text;
}

export const gitStatusTool = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Structured working-tree status from git status --porcelain=v2: branch, upstream, ahead/behind, detached HEAD, staged/unstaged/untracked/conflicted entries with rename origins. index/worktree are git's XY letters ('.' = unchanged). Pages: pass next_cursor as cursor, with the same other arguments, for more entries.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    path: z.string().optional().describe("Limit to this path (relative to the workspace root)."),
    include_ignored: z.boolean().default(false).describe("Also list ignored files."),
    limit: z.int().min(1).max(MAX_STATUS_ENTRIES).default(DEFAULT_STATUS_LIMIT).describe(
      "Most entries in a page (the result ceiling may end it sooner).",
    ),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
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
    total_entries: z.int().describe("Entries in the whole status (every page)."),
    truncated: z.boolean().describe("More entries follow this page."),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const page = await gitStatus(ctx.services.git, {
      path: args.path,
      includeIgnored: args.include_ignored,
      limit: args.limit,
      ...pagedCall(ctx, "git_status", args, ["limit"], STATUS_POSITION, keptStatusBytes),
      signal: ctx.signal,
    });
    return { text: render(page, ctx.arguments), data: { ...page.data } };
  },
});
