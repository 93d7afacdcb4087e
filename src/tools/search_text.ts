import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const searchTextTool = defineTool({
  name: "search_text",
  title: "Search text",
  description:
    "Search file contents with the bundled ripgrep. Literal by default (regex:true for Rust regex), smart case, gitignore honoured, binary files skipped; stops at max_results.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    pattern: z.string().min(1).describe("Text to find (a regex when regex is true)."),
    path: z.string().default(".").describe("File or directory to search, relative to the workspace root."),
    regex: z.boolean().default(false).describe("Treat pattern as a regular expression."),
    case: z.enum(["smart", "sensitive", "insensitive"]).default("smart").describe("Case matching."),
    glob: z.union([z.string(), z.array(z.string()).max(64)]).optional().describe(
      "Gitignore-style pattern(s) limiting which files are searched; !pattern excludes.",
    ),
    include_hidden: z.boolean().default(false).describe("Search dot files and dot directories."),
    context: z.int().min(0).max(10).default(0).describe("Lines of context before and after each match."),
    max_results: z.int().min(1).max(2000).default(200).describe("Stop after this many matches."),
    max_line_bytes: z.int().min(16).max(65536).default(500).describe("Trim each reported line to this many bytes."),
  }),
  output: z.object({
    matches: z.array(z.object({
      path: z.string(),
      line: z.int(),
      column: z.int(),
      text: z.string(),
      before: z.array(z.string()),
      after: z.array(z.string()),
    })),
    files_matched: z.int(),
    truncated: z.boolean(),
    stopped_early: z.boolean(),
  }),
  handler: () => notImplemented("search_text"),
});
