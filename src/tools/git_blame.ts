import { z } from "../zod.ts";
import { defineTool, nextPageCall } from "./tool.ts";
import { BLAME_POSITION, type GitBlame, gitBlame, MAX_BLAME_LINE_CHARS, MAX_BLAME_LINES } from "../git/blame.ts";
import { dataBudget } from "../paging/budget.ts";
import { Cursors, type Paged } from "../paging/cursor.ts";
import { layoutText } from "../paging/text_layout.ts";

/** Default lines per page: about 27,000 characters of JSON at ~130 per line, each commit once (docs/results.md). */
export const DEFAULT_BLAME_LIMIT = 200;

function render(page: Paged<GitBlame>, given: Readonly<Record<string, unknown>>): string {
  const { data } = page;
  if (data.lines.length === 0) return `${data.path}: no lines`;
  const width = String(data.lines[data.lines.length - 1].line).length;
  return layoutText({
    header: (shown) =>
      `${data.path} lines ${data.lines[0].line}-${data.lines[shown - 1].line}` +
      (shown < data.lines.length || data.truncated ? " (more follow)" : ""),
    items: data.lines.map((line) => `${line.sha.slice(0, 8)} ${String(line.line).padStart(width)}: ${line.text}`),
    footer: (shown) => {
      const shas = [...new Set(data.lines.slice(0, shown).map((line) => line.sha))];
      return shas.map((sha) => {
        const commit = data.commits[sha];
        return `[${sha.slice(0, 8)} ${commit.time.slice(0, 10)} ${commit.author}: ${commit.summary}]`;
      });
    },
    next: nextPageCall("git_blame", given, page),
  }).text;
}

export const gitBlameTool = defineTool({
  name: "git_blame",
  title: "Git blame",
  description:
    `Per-line attribution from git blame --porcelain (each line's sha; each commit's author, time and summary once per page in commits) for a line range (start_line to end_line, or to the end of the file), a page of at most limit lines (up to ${MAX_BLAME_LINES}) at a time. Pages: pass next_cursor as cursor, with the same other arguments, for the next lines.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    path: z.string().min(1).describe("File, relative to the workspace root."),
    start_line: z.int().min(1).optional().describe("First line (1-based)."),
    end_line: z.int().min(1).optional().describe("Last line, inclusive (default: the end of the file)."),
    limit: z.int().min(1).max(MAX_BLAME_LINES).default(DEFAULT_BLAME_LIMIT).describe(
      "Most lines in a page (the result ceiling may end it sooner).",
    ),
    rev: z.string().optional().describe("Blame as of this revision (default: the work tree)."),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    path: z.string(),
    lines: z.array(z.object({
      line: z.int(),
      sha: z.string().describe("The commit the line comes from: its details are in commits[sha]."),
      text: z.string().describe(`At most ${MAX_BLAME_LINE_CHARS} characters.`),
    })),
    commits: z.record(
      z.string(),
      z.object({ author: z.string(), time: z.string().describe("ISO 8601 author time."), summary: z.string() }),
    ).describe("Each commit this page's lines name, once, by full sha (all zeros: not committed yet)."),
    truncated: z.boolean().describe("More lines of the range follow this page."),
    next_start_line: z.int().nullable().describe("The first line after this page, when more follow."),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const cursors = new Cursors("git_blame", args, ["limit"]);
    const page = await gitBlame(ctx.services.git, {
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      limit: args.limit,
      rev: args.rev,
      page: cursors.request(BLAME_POSITION, dataBudget(ctx.config.maxResultChars)),
      signal: ctx.signal,
    });
    return { text: render(page, ctx.arguments), data: { ...page.data } };
  },
});
