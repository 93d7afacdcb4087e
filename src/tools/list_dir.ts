import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

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
    })),
    truncated: z.boolean(),
    total_seen: z.int(),
  }),
  handler: () => notImplemented("list_dir"),
});
