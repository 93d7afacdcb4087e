import { z } from "../zod.ts";
import { defineTool, pagedCall } from "./tool.ts";
import { gitDiff, type KeptDiff, type PagedDiff } from "../git/diff.ts";
import { type DiffFile, MAX_DIFF_FILES } from "../git/diff_stream.ts";
import { cutPatch, DIFF_POSITION, overflowAt, type PatchLine } from "../git/diff_page.ts";
import { MAX_TEXT_BYTES } from "../paging/budget.ts";
import { nextCall } from "../paging/text_layout.ts";

/** Default bytes of patch text in a page: with the files' stats, under 32,000 characters of JSON (docs/results.md). */
export const DEFAULT_PATCH_BYTES = 20 * 1024;

/** The per-file schema git_diff and git_show share. */
export const diffFileSchema = z.object({
  path: z.string(),
  old_path: z.string().nullable(),
  status: z.enum(["added", "modified", "deleted", "renamed", "copied", "type_changed", "unmerged", "unknown"]),
  added: z.int().nullable(),
  removed: z.int().nullable(),
  binary: z.boolean(),
});

/** One stat line per file, e.g. "modified src/a.ts  +3 -1". */
function statLine(file: DiffFile): string {
  const counts = file.binary ? "binary" : file.added === null ? "" : `+${file.added} -${file.removed}`;
  const from = file.old_path === null ? "" : ` (from ${file.old_path})`;
  return `${file.status} ${file.path}${from}  ${counts}`.trimEnd();
}

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/** A patch page's text (git_diff, git_show): whole files, else hunks, else lines that fit, then the next call. */
export function renderPatch(head: string[], diff: PagedDiff, next: (cursor: string) => string): string {
  const { lines, data } = diff;
  const opens = (line: PatchLine, i: number) => i === 0 || lines[i - 1].file !== line.file;
  const stat = (index: number) => {
    const file = diff.fileAt(index);
    return file ? statLine(file) : `(file ${index + 1})`;
  };
  const compose = (shown: number) => {
    const visible = lines.slice(0, shown);
    const files = [...new Set(visible.map((line) => line.file))];
    const cursor = diff.cursorAfter(shown);
    const last = visible.at(-1);
    const lastPath = last === undefined ? "" : diff.fileAt(last.file)?.path ?? `file ${last.file + 1}`;
    // The last file shown goes on when the next line is still its own.
    const going = cursor !== null && last !== undefined &&
      (shown < lines.length ? lines[shown].file === last.file : data.cut_files.includes(lastPath));
    const range = files.length === 0
      ? "no patch lines"
      : `files ${files[0] + 1}-${files.at(-1)! + 1} here${diff.replayed > 0 ? " (the first continued)" : ""}`;
    return [
      ...head,
      `${data.total_files} file${data.total_files === 1 ? "" : "s"} changed; ${range}:`,
      ...files.map(stat),
      "",
      ...visible.map((line) => line.text),
      ...(going ? [`[the patch of ${lastPath} goes on]`] : []),
      ...(cursor !== null ? [next(cursor)] : []),
    ].join("\n");
  };
  // Reserve what the lines do not cost: head, summary, the longest plausible note and next line.
  const reserve = bytes(compose(0)) + 512;
  const cost = (line: PatchLine, i: number) => bytes(line.text) + 1 + (opens(line, i) ? bytes(stat(line.file)) + 1 : 0);
  const share = (part: number) => overflowAt(lines, [[(MAX_TEXT_BYTES - reserve) * part, cost]]);
  let shown = cutPatch(lines, share(1), share(0.5), diff.replayed);
  let text = compose(shown);
  while (bytes(text) > MAX_TEXT_BYTES && shown > diff.replayed + 1) text = compose(--shown);
  return text;
}

export const gitDiffTool = defineTool({
  name: "git_diff",
  title: "Git diff",
  description:
    "Unstaged (default) or staged diff, or against a revision or range, a page at a time: the page's files with their stats and their unified text, whole files when they fit, else whole hunks, else whole lines. Pages: pass next_cursor as cursor, with the same other arguments, for the rest.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    staged: z.boolean().default(false).describe(
      "Diff the index against HEAD (or rev) instead of the worktree against the index.",
    ),
    paths: z.array(z.string()).max(256).optional().describe("Limit to these paths."),
    context: z.int().min(0).max(100).default(3).describe("Context lines."),
    max_bytes: z.int().min(1).max(1048576).default(DEFAULT_PATCH_BYTES).describe(
      "Most bytes of unified text in a page (the result ceiling may end it sooner; a page holds at least a line).",
    ),
    rev: z.string().optional().describe(
      'A revision ("HEAD~3": work tree, or index with staged, against it) or a range ("main..feature").',
    ),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    files: z.array(diffFileSchema).describe("The files whose patch is in this page, or part of it."),
    total_files: z.int().describe(`Files changed in the whole diff (a page lists at most ${MAX_DIFF_FILES}).`),
    diff: z.string(),
    truncated: z.boolean().describe("More of the diff follows this page."),
    shown_bytes: z.int(),
    repeated_lines: z.int().describe(
      "Lines at the start of diff repeated from the previous page: the header (and @@ line) of a file it continues.",
    ),
    cut_files: z.array(z.string()).describe(
      "Files of this page whose patch is only partly in it (continued from the previous page, or on the next).",
    ),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const diff = await gitDiff(ctx.services.git, {
      staged: args.staged,
      paths: args.paths,
      context: args.context,
      maxBytes: args.max_bytes,
      rev: args.rev,
      // The pages of one query read the whole diff as its first page kept it (the cursor binds them to the query).
      ...pagedCall(ctx, "git_diff", args, ["max_bytes"], DIFF_POSITION, (kept: KeptDiff) => kept.bytes),
      signal: ctx.signal,
    });
    const what = args.rev ?? (args.staged ? "staged changes" : "unstaged changes");
    if (diff.data.total_files === 0) return { text: `No differences (${what}).`, data: { ...diff.data } };
    const text = renderPatch([`git diff (${what})`], diff, (cursor) => nextCall("git_diff", ctx.arguments, { cursor }));
    return { text, data: { ...diff.data } };
  },
});
