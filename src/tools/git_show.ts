import { z } from "../zod.ts";
import { defineTool, pagedCall } from "./tool.ts";
import { CONTENT_POSITION, type GitShow, gitShow, type KeptShow } from "../git/show.ts";
import { DIFF_POSITION } from "../git/diff_page.ts";
import { DEFAULT_PATCH_BYTES, diffFileSchema, renderPatch } from "./git_diff.ts";
import { personSchema } from "./git_log.ts";
import { MAX_TEXT_BYTES } from "../paging/budget.ts";
import type { Paged } from "../paging/cursor.ts";
import { nextCall } from "../paging/text_layout.ts";
import { utf8CutIndex } from "../text/utf8.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function renderContent(page: Paged<GitShow>, next: (cursor: string) => string): string {
  const shown = page.data;
  const content = encoder.encode(shown.content ?? "");
  const head = (end: number) =>
    `${shown.path} at ${shown.rev} (${shown.sha.slice(0, 12)}, ${shown.size} bytes), bytes ${page.start}-${
      page.start + end
    }:`;
  const tail = (end: number) => {
    const cursor = page.cursorAfter(end);
    return cursor === null ? "" : `\n${next(cursor)}`;
  };
  const room = MAX_TEXT_BYTES - encoder.encode(head(content.length) + tail(content.length)).length - 2;
  // Whole lines that fit; a first line longer than the text is cut on a character boundary.
  let end = content.length;
  if (end > room) {
    const lineEnd = content.lastIndexOf(0x0a, room - 1) + 1;
    end = lineEnd > 0 ? lineEnd : utf8CutIndex(content, room);
  }
  return `${head(end)}\n${decoder.decode(content.subarray(0, end))}${tail(end)}`;
}

export const gitShowTool = defineTool({
  name: "git_show",
  title: "Git show",
  description:
    "A commit's metadata, diffstat and patch (merges against their first parent); with path, that file's content at the revision (UTF-8 text only). A page at a time: pass next_cursor as cursor, with the same other arguments, for the rest.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    rev: z.string().min(1).describe('Revision, e.g. "HEAD", a sha or a tag.'),
    path: z.string().optional().describe("Show this file's content at rev instead of the commit."),
    max_bytes: z.int().min(1).max(1048576).default(DEFAULT_PATCH_BYTES).describe(
      "Most bytes of patch or content in a page (the result ceiling may end it sooner).",
    ),
    cursor: z.string().optional().describe("next_cursor of the previous page (same other arguments)."),
  }),
  output: z.object({
    rev: z.string(),
    sha: z.string().describe("The commit rev resolves to."),
    kind: z.enum(["commit", "file"]),
    commit: z.object({
      parents: z.array(z.string()),
      author: personSchema,
      committer: personSchema,
      subject: z.string(),
      body: z.string(),
      body_truncated: z.boolean(),
    }).nullable(),
    files: z.array(diffFileSchema).describe("The files whose patch is in this page, or part of it."),
    total_files: z.int().describe("Files the commit changes (0 for kind file)."),
    patch: z.string().nullable(),
    repeated_lines: z.int().describe(
      "Lines at the start of patch repeated from the previous page: the header (and @@ line) of a file it continues.",
    ),
    cut_files: z.array(z.string()).describe(
      "Files of this page whose patch is only partly in it (continued from the previous page, or on the next).",
    ),
    path: z.string().nullable(),
    content: z.string().nullable(),
    size: z.int().nullable().describe("Size in bytes of the file at rev (kind file)."),
    truncated: z.boolean().describe("More follows this page."),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null at the end."),
  }),
  handler: async (args, ctx) => {
    const bytes = (kept: KeptShow) =>
      kept.diff.bytes + 2 * (kept.commit.subject.length + kept.commit.body.length) + 512;
    const shown = await gitShow(ctx.services.git, {
      rev: args.rev,
      path: args.path,
      maxBytes: args.max_bytes,
      ...(args.path === undefined
        ? pagedCall(ctx, "git_show", args, ["max_bytes"], DIFF_POSITION, bytes)
        : pagedCall(ctx, "git_show", args, ["max_bytes"], CONTENT_POSITION, bytes)),
      signal: ctx.signal,
    });
    const next = (cursor: string) => nextCall("git_show", ctx.arguments, { cursor });
    const data = { ...shown.page.data };
    if (shown.kind === "file") return { text: renderContent(shown.page, next), data };
    const commit = data.commit!;
    const head = [
      `commit ${data.sha}${
        commit.parents.length > 1 ? ` (merge of ${commit.parents.map((p) => p.slice(0, 12)).join(", ")})` : ""
      }`,
      `Author: ${commit.author.name} <${commit.author.email}> ${commit.author.time}`,
      "",
      commit.subject,
      ...(commit.body.length > 0 ? ["", commit.body] : []),
      "",
    ];
    return { text: renderPatch(head, shown.diff, next), data };
  },
});
