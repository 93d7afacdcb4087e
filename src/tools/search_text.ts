import { z } from "zod";
import { defineTool } from "./tool.ts";
import { type SearchResult, searchText } from "../search/search_text.ts";

function render(result: SearchResult, context: number): string {
  if (result.matches.length === 0) {
    return ["No matches.", ...result.warnings.map((warning) => `[warning: ${warning}]`)].join("\n");
  }
  const head = `${result.matches.length} match${
    result.matches.length === 1 ? "" : "es"
  } in ${result.files_matched} file${result.files_matched === 1 ? "" : "s"}${
    result.truncated ? " (truncated at max_results: narrow the pattern, path or glob)" : ""
  }`;
  const lines: string[] = [head];
  for (const match of result.matches) {
    if (context > 0) {
      lines.push("--");
      match.before.forEach((text, i) => lines.push(`${match.path}-${match.line - match.before.length + i}-${text}`));
    }
    lines.push(`${match.path}:${match.line}:${match.column}:${match.text}`);
    if (context > 0) match.after.forEach((text, i) => lines.push(`${match.path}-${match.line + 1 + i}-${text}`));
  }
  for (const warning of result.warnings) lines.push(`[warning: ${warning}]`);
  return lines.join("\n");
}

export const searchTextTool = defineTool({
  name: "search_text",
  title: "Search text",
  description:
    "Search file contents with the bundled ripgrep. Literal by default (regex:true for Rust regex), smart case, gitignore honoured, binary files skipped; stops at max_results. content lists path:line:column:text.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    pattern: z.string().min(1).describe("Text to find (a regex when regex is true)."),
    path: z.string().default(".").describe("File or directory to search, relative to the workspace root."),
    regex: z.boolean().default(false).describe("Treat pattern as a regular expression."),
    case: z.enum(["smart", "sensitive", "insensitive"]).default("smart").describe("Case matching."),
    glob: z.union([z.string(), z.array(z.string()).max(64)]).optional().describe(
      "Gitignore-style pattern(s) limiting which files are searched, relative to path; !pattern excludes.",
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
      path_lossy: z.boolean().optional(),
    })),
    files_matched: z.int(),
    truncated: z.boolean(),
    stopped_early: z.boolean(),
    warnings: z.array(z.string()),
  }),
  handler: async (args, ctx) => {
    const result = await searchText(ctx.workspace, args.path, ctx.services.ripgrepRunner, {
      pattern: args.pattern,
      regex: args.regex,
      case: args.case,
      globs: args.glob === undefined ? [] : typeof args.glob === "string" ? [args.glob] : args.glob,
      includeHidden: args.include_hidden,
      context: args.context,
      maxResults: args.max_results,
      maxLineBytes: args.max_line_bytes,
      signal: ctx.signal,
    });
    return { text: render(result, args.context), data: { ...result } };
  },
});
