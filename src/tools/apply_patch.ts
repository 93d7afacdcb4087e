import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  title: "Apply patch",
  description:
    "Apply a *** Begin Patch / *** End Patch envelope (Add File, Update File with @@ hunks and optional *** Move to:, Delete File). Every hunk is matched before anything is written; all files are installed atomically or none.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input: z.strictObject({
    patch: z.string().min(1).describe("The full patch text, from *** Begin Patch to *** End Patch."),
  }),
  output: z.object({
    files: z.array(z.object({
      op: z.enum(["add", "update", "delete", "move"]),
      path: z.string(),
      moved_to: z.string().nullable(),
      added: z.int(),
      removed: z.int(),
    })),
    diff: z.string(),
    diff_truncated: z.boolean(),
    warnings: z.array(z.string()),
  }),
  handler: () => notImplemented("apply_patch"),
});
