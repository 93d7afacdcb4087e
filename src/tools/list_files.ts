import { z } from "zod";
import { defineTool } from "./tool.ts";
import { type FileListing, listFiles } from "../files/list_files.ts";

function render(listing: FileListing, sort: string): string {
  const total = listing.total_matched === null ? `${listing.files.length}+` : String(listing.total_matched);
  const head = `${listing.path}: ${listing.files.length} of ${total} files (sort ${sort})${
    listing.truncated ? "; truncated: narrow with glob/path or raise limit" : ""
  }`;
  const lines = listing.files.map((file) => `${file.path}${file.path_lossy ? "  [name not UTF-8]" : ""}`);
  return [head, ...lines, ...listing.warnings.map((warning) => `[warning: ${warning}]`)].join("\n");
}

export const listFilesTool = defineTool({
  name: "list_files",
  title: "List files",
  description:
    "List files recursively with gitignore-style globs, honouring .gitignore/.ignore/.git/info/exclude like git. Sort by path, mtime (newest first), size (largest first) or none (fastest: stops at the cap). Symlinks are not listed.",
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
    limit: z.int().min(1).max(100000).default(1000).describe("Maximum files returned."),
  }),
  output: z.object({
    path: z.string(),
    files: z.array(z.object({
      path: z.string(),
      size: z.int().nullable(),
      mtime: z.string().nullable(),
      path_lossy: z.boolean().optional(),
    })),
    truncated: z.boolean(),
    total_matched: z.int().nullable(),
    warnings: z.array(z.string()),
  }),
  handler: async (args, ctx) => {
    const listing = await listFiles(ctx.workspace, args.path, ctx.services.ripgrepRunner, {
      globs: args.glob === undefined ? [] : typeof args.glob === "string" ? [args.glob] : args.glob,
      ignore: args.ignore ?? [],
      respectGitignore: args.respect_gitignore,
      includeHidden: args.include_hidden,
      sort: args.sort,
      limit: args.limit,
      signal: ctx.signal,
    });
    return { text: render(listing, args.sort), data: { ...listing } };
  },
});
