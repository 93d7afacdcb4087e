import { z } from "../zod.ts";
import { defineTool, nextPageCall, pagedCall } from "./tool.ts";
import { DIR_POSITION, type DirEntry, type DirListing, keptTreeBytes, listDir } from "../files/list_dir.ts";
import type { Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Default entries per page: about 24,000 characters of JSON at ~120 per entry (docs/results.md). */
export const DEFAULT_LIST_DIR_LIMIT = 200;

function line(entry: DirEntry): string {
  const suffix = entry.type === "dir"
    ? "/"
    : entry.type === "symlink"
    ? ` -> ${entry.target ?? "(outside the workspace or dangling)"}`
    : entry.type === "other"
    ? " (special file)"
    : entry.size !== null
    ? `  ${entry.size} B`
    : "";
  return `${entry.path}${suffix}${entry.name_lossy ? "  [name not UTF-8]" : ""}`;
}

function render(page: Paged<DirListing>, given: Readonly<Record<string, unknown>>): string {
  const { data } = page;
  const total = `${data.total_seen}${data.total_exact ? "" : "+"}`;
  const notes = data.skipped.map((item) => `[unreadable: ${item.path}: ${item.reason}]`);
  if (data.hidden > 0) {
    notes.push(
      `[${data.hidden} hidden ${data.hidden === 1 ? "entry" : "entries"} (names starting with a dot) left out; ` +
        "pass include_hidden: true to list them]",
    );
  }
  if (data.entries.length === 0) return [`${data.path}: no entries of ${total}`, ...notes].join("\n");
  return layoutText({
    header: (shown) => `${data.path}: entries ${page.start + 1}-${page.start + shown} of ${total} (tree order)`,
    items: data.entries.map(line),
    footer: () => notes,
    next: nextPageCall("list_dir", given, page),
  }).text;
}

export const listDirTool = defineTool({
  name: "list_dir",
  title: "List directory",
  description:
    "List a directory's entries, immediate or recursive up to depth 10, in tree order. Symlinks are reported, never descended; hidden entries only with include_hidden. Pages: pass next_cursor as cursor, with the same other arguments, for the next page.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().default(".").describe("Directory, relative to the workspace root."),
    depth: z.int().min(1).max(10).default(1).describe("1 lists immediate entries; more recurses."),
    limit: z.int().min(1).max(10000).default(DEFAULT_LIST_DIR_LIMIT).describe(
      "Most entries in a page (the result ceiling may end it sooner).",
    ),
    include_hidden: z.boolean().default(false).describe("Include names starting with a dot."),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    path: z.string(),
    entries: z.array(z.object({
      path: z.string(),
      name: z.string(),
      type: z.enum(["file", "dir", "symlink", "other"]),
      size: z.int().nullable(),
      mtime: z.string().nullable(),
      target: z.string().nullable().optional(),
      name_lossy: z.boolean().optional(),
    })),
    truncated: z.boolean().describe("More entries follow this page."),
    total_seen: z.int(),
    total_exact: z.boolean(),
    hidden: z.int().min(0).describe(
      "Entries left out for names starting with a dot, in the whole listing as far as it was counted; a hidden " +
        "directory counts once, unwalked. 0 with include_hidden.",
    ),
    skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: (args, ctx) => {
    const page = listDir(ctx.workspace, args.path, {
      depth: args.depth,
      limit: args.limit,
      includeHidden: args.include_hidden,
      ...pagedCall(ctx, "list_dir", args, ["limit"], DIR_POSITION, keptTreeBytes),
    });
    return Promise.resolve({ text: render(page, ctx.arguments), data: { ...page.data } });
  },
});
