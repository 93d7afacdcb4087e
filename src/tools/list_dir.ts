import { z } from "zod";
import { defineTool } from "./tool.ts";
import { type DirListing, listDir } from "../files/list_dir.ts";

function render(listing: DirListing): string {
  const lines = listing.entries.map((entry) => {
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
  });
  const head = `${listing.path}: ${listing.entries.length} of ${listing.total_seen}${
    listing.total_exact ? "" : "+"
  } entries${listing.truncated ? " (truncated: raise limit or list a subdirectory)" : ""}`;
  const skipped = listing.skipped.map((item) => `[unreadable: ${item.path}: ${item.reason}]`);
  return [head, ...lines, ...skipped].join("\n");
}

export const listDirTool = defineTool({
  name: "list_dir",
  title: "List directory",
  description:
    "List a directory's entries, immediate or recursive up to depth 10. Symlinks are reported, never descended; hidden entries only with include_hidden.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().default(".").describe("Directory, relative to the workspace root."),
    depth: z.int().min(1).max(10).default(1).describe("1 lists immediate entries; more recurses."),
    limit: z.int().min(1).max(10000).default(1000).describe("Maximum entries returned."),
    include_hidden: z.boolean().default(false).describe("Include names starting with a dot."),
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
    truncated: z.boolean(),
    total_seen: z.int(),
    total_exact: z.boolean(),
    skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  }),
  handler: async (args, ctx) => {
    const listing = await listDir(ctx.workspace, args.path, {
      depth: args.depth,
      limit: args.limit,
      includeHidden: args.include_hidden,
    });
    return { text: render(listing), data: { ...listing } };
  },
});
