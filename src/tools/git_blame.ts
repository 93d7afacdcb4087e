import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gitBlame, MAX_BLAME_LINE_CHARS, MAX_BLAME_LINES } from "../git/blame.ts";

export const gitBlameTool = defineTool({
  name: "git_blame",
  title: "Git blame",
  description:
    `Per-line attribution (sha, author, time, summary) from git blame --porcelain, for a line range of at most ${MAX_BLAME_LINES} lines; page with next_start_line.`,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    path: z.string().min(1).describe("File, relative to the workspace root."),
    start_line: z.int().min(1).optional().describe("First line (1-based)."),
    end_line: z.int().min(1).optional().describe("Last line, inclusive."),
    rev: z.string().optional().describe("Blame as of this revision (default: the work tree)."),
  }),
  output: z.object({
    path: z.string(),
    lines: z.array(z.object({
      line: z.int(),
      sha: z.string(),
      author: z.string(),
      time: z.string(),
      summary: z.string(),
      text: z.string().describe(`At most ${MAX_BLAME_LINE_CHARS} characters.`),
    })),
    truncated: z.boolean(),
    next_start_line: z.int().nullable(),
  }),
  handler: async (args, ctx) => {
    const blame = await gitBlame(ctx.services.git, {
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      rev: args.rev,
      signal: ctx.signal,
    });
    const lines = blame.lines.map((line) =>
      `${line.sha.slice(0, 8)} ${line.time.slice(0, 10)} ${
        line.author.padEnd(16).slice(0, 16)
      } ${line.line}: ${line.text}`
    );
    if (blame.lines.length === 0) lines.push(`${blame.path}: no lines`);
    if (blame.truncated) lines.push(`[… more lines; continue with start_line ${blame.next_start_line}]`);
    return { text: lines.join("\n"), data: { ...blame } };
  },
});
