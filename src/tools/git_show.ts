import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gitShow } from "../git/show.ts";
import { cutNote, diffFileSchema, diffStatLines } from "./git_diff.ts";
import { personSchema } from "./git_log.ts";

export const gitShowTool = defineTool({
  name: "git_show",
  title: "Git show",
  description:
    "A commit's metadata, diffstat and bounded patch (merges against their first parent); with path, that file's content at the revision (UTF-8 text only).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  requires: ["git"],
  input: z.strictObject({
    rev: z.string().min(1).describe('Revision, e.g. "HEAD", a sha or a tag.'),
    path: z.string().optional().describe("Show this file's content at rev instead of the commit."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Bound on patch or content text."),
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
    files: z.array(diffFileSchema),
    patch: z.string().nullable(),
    cut_files: z.array(z.string()).describe("Files whose patch is missing from patch or only partly in it."),
    path: z.string().nullable(),
    content: z.string().nullable(),
    size: z.int().nullable().describe("Size in bytes of the file at rev (kind file)."),
    truncated: z.boolean(),
  }),
  handler: async (args, ctx) => {
    const shown = await gitShow(ctx.services.git, {
      rev: args.rev,
      path: args.path,
      maxBytes: args.max_bytes,
      signal: ctx.signal,
    });
    if (shown.kind === "file") {
      const note = shown.truncated ? `\n[… cut at ${args.max_bytes} of ${shown.size} bytes; raise max_bytes]` : "";
      return {
        text: `${shown.path} at ${shown.rev} (${
          shown.sha.slice(0, 12)
        }, ${shown.size} bytes):\n${shown.content}${note}`,
        data: { ...shown },
      };
    }
    const commit = shown.commit!;
    const lines = [
      `commit ${shown.sha}${
        commit.parents.length > 1 ? ` (merge of ${commit.parents.map((p) => p.slice(0, 12)).join(", ")})` : ""
      }`,
      `Author: ${commit.author.name} <${commit.author.email}> ${commit.author.time}`,
      "",
      commit.subject,
      ...(commit.body.length > 0 ? ["", commit.body] : []),
      "",
      ...diffStatLines(shown.files),
      "",
      shown.patch ?? "",
    ];
    if (shown.truncated) lines.push(cutNote(shown.cut_files, new TextEncoder().encode(shown.patch ?? "").length));
    return { text: lines.join("\n"), data: { ...shown } };
  },
});
