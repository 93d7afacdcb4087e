import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

const person = z.object({ name: z.string(), email: z.string(), time: z.string() });

export const gitShowTool = defineTool({
  name: "git_show",
  title: "Git show",
  description: "A revision's metadata, diffstat and bounded patch; with path, that file's content at the revision.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    rev: z.string().min(1).describe('Revision, e.g. "HEAD", a sha or a tag.'),
    path: z.string().optional().describe("Show this file's content at rev instead of the commit."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Bound on patch or content text."),
  }),
  output: z.object({
    rev: z.string(),
    sha: z.string(),
    kind: z.enum(["commit", "file"]),
    commit: z.object({
      parents: z.array(z.string()),
      author: person,
      committer: person,
      subject: z.string(),
      body: z.string(),
    }).nullable(),
    files: z.array(z.object({
      path: z.string(),
      old_path: z.string().nullable(),
      status: z.string(),
      added: z.int().nullable(),
      removed: z.int().nullable(),
      binary: z.boolean(),
    })),
    patch: z.string().nullable(),
    path: z.string().nullable(),
    content: z.string().nullable(),
    truncated: z.boolean(),
  }),
  handler: () => notImplemented("git_show"),
});
