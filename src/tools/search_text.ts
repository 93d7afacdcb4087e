import { z } from "../zod.ts";
import { defineTool, nextPageCall, pagedCall } from "./tool.ts";
import { SEARCH_POSITION, type SearchResult, searchText } from "../search/search_text.ts";
import type { KeptSearch } from "../search/kept_search.ts";
import type { SearchMatch } from "../search/match_collector.ts";
import type { Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Default matches per page: 100 one-line matches are about 20,000 characters of JSON (docs/results.md). */
export const DEFAULT_MAX_RESULTS = 100;

/** One match as grep shows it: `path:line:column:text`, context as `path-line-text` after a `--` separator. */
function block(match: SearchMatch, context: number): string {
  const line = `${match.path}:${match.line}:${match.column}:${match.text}`;
  if (context === 0) return line;
  const before = match.before.map((text, i) => `${match.path}-${match.line - match.before.length + i}-${text}`);
  const after = match.after.map((text, i) => `${match.path}-${match.line + 1 + i}-${text}`);
  return ["--", ...before, line, ...after].join("\n");
}

function render(page: Paged<SearchResult>, context: number, given: Readonly<Record<string, unknown>>): string {
  const { data } = page;
  const warnings = data.warnings.map((warning) => `[warning: ${warning}]`);
  if (data.matches.length === 0) {
    return [page.start > 0 ? "No more matches." : "No matches.", ...warnings].join("\n");
  }
  return layoutText({
    header: (shown) => {
      const files = new Set(data.matches.slice(0, shown).map((match) => match.path)).size;
      return `matches ${page.start + 1}-${page.start + shown} in ${files} file${files === 1 ? "" : "s"}` +
        (shown < data.matches.length || data.truncated ? " (more follow)" : "");
    },
    items: data.matches.map((match) => block(match, context)),
    footer: () => warnings,
    next: nextPageCall("search_text", given, page),
  }).text;
}

export const searchTextTool = defineTool({
  name: "search_text",
  title: "Search text",
  description:
    "Search file contents with the bundled ripgrep. Literal by default (regex:true for Rust regex), smart case, gitignore honoured, binary files skipped; files in path order, stops at max_results. content lists path:line:column:text. Pages: pass next_cursor as cursor, with the same other arguments, for the next matches.",
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
    max_results: z.int().min(1).max(2000).default(DEFAULT_MAX_RESULTS).describe(
      "Most matches in a page (the result ceiling may end it sooner).",
    ),
    max_line_bytes: z.int().min(16).max(65536).default(500).describe(
      "Trim each reported line to this many bytes (less when needed for a match to fit the result ceiling).",
    ),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
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
    truncated: z.boolean().describe("More matches follow this page."),
    stopped_early: z.boolean(),
    warnings: z.array(z.string()),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const page = await searchText(ctx.workspace, args.path, ctx.services.ripgrepRunner, {
      pattern: args.pattern,
      regex: args.regex,
      case: args.case,
      globs: args.glob === undefined ? [] : typeof args.glob === "string" ? [args.glob] : args.glob,
      includeHidden: args.include_hidden,
      context: args.context,
      maxResults: args.max_results,
      maxLineBytes: args.max_line_bytes,
      ...pagedCall(ctx, "search_text", args, ["max_results"], SEARCH_POSITION, (kept: KeptSearch) => kept.bytes),
      signal: ctx.signal,
    });
    return { text: render(page, args.context, ctx.arguments), data: { ...page.data } };
  },
});
