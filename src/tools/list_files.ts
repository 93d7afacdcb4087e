import { z } from "../zod.ts";
import { defineTool, nextPageCall, pagedCall } from "./tool.ts";
import { type FileListing, keptBytes, listFiles, listPositionSchema } from "../files/list_files.ts";
import type { Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Default files per page: a few hundred entries, about 25,000 characters of JSON (docs/results.md). */
export const DEFAULT_LIST_FILES_LIMIT = 250;

function render(page: Paged<FileListing>, sort: string, given: Readonly<Record<string, unknown>>): string {
  const { data } = page;
  // With sort "none" a walk stopped at the cap knows only that more follow.
  const total = data.total_matched === null ? `${page.start + data.files.length}+` : String(data.total_matched);
  const warnings = data.warnings.map((warning) => `[warning: ${warning}]`);
  if (data.files.length === 0) return [`${data.path}: no files (sort ${sort})`, ...warnings].join("\n");
  return layoutText({
    header: (shown) => `${data.path}: files ${page.start + 1}-${page.start + shown} of ${total} (sort ${sort})`,
    items: data.files.map((file) => `${file.path}${file.path_lossy ? "  [name not UTF-8]" : ""}`),
    footer: () => warnings,
    next: nextPageCall("list_files", given, page),
  }).text;
}

export const listFilesTool = defineTool({
  name: "list_files",
  title: "List files",
  description:
    "List files recursively with gitignore-style globs, honouring .gitignore/.ignore/.git/info/exclude like git. Sort by path, mtime (newest first), size (largest first) or none (walk order, stops at the cap). Symlinks are not listed. Pages: pass next_cursor as cursor, with the same other arguments, for the next page.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().default(".").describe("Directory to list under, relative to the workspace root."),
    glob: z.union([z.string(), z.array(z.string()).max(64)]).optional().describe(
      'Gitignore-style pattern(s) a file must match, relative to path, e.g. "**/*.ts"; "!pattern" excludes.',
    ),
    ignore: z.array(z.string()).max(64).optional().describe(
      "Extra gitignore-style patterns to exclude, relative to path.",
    ),
    respect_gitignore: z.boolean().default(true).describe("Honour .gitignore, .ignore and .git/info/exclude."),
    include_hidden: z.boolean().default(false).describe("Include dot files and dot directories."),
    sort: z.enum(["path", "mtime", "size", "none"]).default("path").describe("Order of results."),
    limit: z.int().min(1).max(100000).default(DEFAULT_LIST_FILES_LIMIT).describe(
      "Most files in a page (the result ceiling may end it sooner).",
    ),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    path: z.string(),
    files: z.array(z.object({
      path: z.string(),
      size: z.int().nullable(),
      mtime: z.string().nullable(),
      path_lossy: z.boolean().optional(),
    })),
    truncated: z.boolean().describe("More files follow this page."),
    total_matched: z.int().nullable(),
    warnings: z.array(z.string()),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const page = await listFiles(ctx.workspace, args.path, ctx.services.ripgrepRunner, {
      globs: args.glob === undefined ? [] : typeof args.glob === "string" ? [args.glob] : args.glob,
      ignore: args.ignore ?? [],
      respectGitignore: args.respect_gitignore,
      includeHidden: args.include_hidden,
      sort: args.sort,
      limit: args.limit,
      ...pagedCall(ctx, "list_files", args, ["limit"], listPositionSchema(args.sort), keptBytes),
      signal: ctx.signal,
    });
    return { text: render(page, args.sort, ctx.arguments), data: { ...page.data } };
  },
});
