import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gitDiff } from "../git/diff.ts";
import { type DiffFile, MAX_DIFF_FILES } from "../git/diff_stream.ts";

/** The per-file schema git_diff and git_show share. */
export const diffFileSchema = z.object({
  path: z.string(),
  old_path: z.string().nullable(),
  status: z.enum(["added", "modified", "deleted", "renamed", "copied", "type_changed", "unmerged", "unknown"]),
  added: z.int().nullable(),
  removed: z.int().nullable(),
  binary: z.boolean(),
});

/** One stat line per file, e.g. "M  src/a.ts  +3 -1". */
export function diffStatLines(files: DiffFile[]): string[] {
  return files.map((file) => {
    const counts = file.binary ? "binary" : file.added === null ? "" : `+${file.added} -${file.removed}`;
    const from = file.old_path === null ? "" : ` (from ${file.old_path})`;
    return `${file.status} ${file.path}${from}  ${counts}`.trimEnd();
  });
}

/** The cut note for a bounded patch. */
export function cutNote(cutFiles: string[], shownBytes: number): string {
  return `[diff cut at ${shownBytes} bytes; not fully shown: ${cutFiles.join(", ")}. ` +
    `Narrow with paths or raise max_bytes.]`;
}

export const gitDiffTool = defineTool({
  name: "git_diff",
  title: "Git diff",
  description:
    "Unstaged (default) or staged diff, or against a revision or range, as per-file stats plus unified text bounded by max_bytes (cut at a line end; cut_files names what is missing).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    staged: z.boolean().default(false).describe(
      "Diff the index against HEAD (or rev) instead of the worktree against the index.",
    ),
    paths: z.array(z.string()).max(256).optional().describe("Limit to these paths."),
    context: z.int().min(0).max(100).default(3).describe("Context lines."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Bound on the unified diff text."),
    rev: z.string().optional().describe(
      'A revision ("HEAD~3": work tree, or index with staged, against it) or a range ("main..feature").',
    ),
  }),
  output: z.object({
    files: z.array(diffFileSchema),
    total_files: z.int().describe(`Files changed; at most ${MAX_DIFF_FILES} are listed.`),
    diff: z.string(),
    truncated: z.boolean(),
    shown_bytes: z.int(),
    cut_files: z.array(z.string()).describe("Files whose patch is missing from diff or only partly in it."),
  }),
  handler: async (args, ctx) => {
    const diff = await gitDiff(ctx.services.git, {
      staged: args.staged,
      paths: args.paths,
      context: args.context,
      maxBytes: args.max_bytes,
      rev: args.rev,
      signal: ctx.signal,
    });
    const what = args.rev ?? (args.staged ? "staged changes" : "unstaged changes");
    if (diff.total_files === 0) return { text: `No differences (${what}).`, data: { ...diff } };
    const lines = [`${diff.total_files} file(s) changed (${what}):`, ...diffStatLines(diff.files), "", diff.diff];
    if (diff.truncated) lines.push(cutNote(diff.cut_files, diff.shown_bytes));
    return { text: lines.join("\n"), data: { ...diff } };
  },
});
