import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const listFilesTool = defineTool({
  name: "list_files",
  title: "List files",
  description:
    "List files recursively with gitignore-style globs, honouring .gitignore/.ignore/.git/info/exclude like git. Sort by path, mtime, size or none (none stops at the cap).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().default(".").describe("Directory to list under, relative to the workspace root."),
    glob: z.union([z.string(), z.array(z.string()).max(64)]).optional().describe(
      'Gitignore-style pattern(s) a file must match, e.g. "**/*.ts".',
    ),
    ignore: z.array(z.string()).max(64).optional().describe("Extra gitignore-style patterns to exclude."),
    respect_gitignore: z.boolean().default(true).describe("Honour .gitignore, .ignore and .git/info/exclude."),
    include_hidden: z.boolean().default(false).describe("Include dot files and dot directories."),
    sort: z.enum(["path", "mtime", "size", "none"]).default("path").describe("Order of results."),
    limit: z.int().min(1).max(100000).default(1000).describe("Maximum files returned."),
  }),
  output: z.object({
    path: z.string(),
    files: z.array(z.object({ path: z.string(), size: z.int(), mtime: z.string().nullable() })),
    truncated: z.boolean(),
    total_matched: z.int().nullable(),
  }),
  handler: () => notImplemented("list_files"),
});
