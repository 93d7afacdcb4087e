import { z } from "zod";
import { defineTool } from "./tool.ts";
import { applyPatch, type PatchResult } from "../patch/apply.ts";

const OP_LETTERS = { add: "A", update: "M", delete: "D", move: "R" } as const;

/** The agent-facing summary: one line per file, warnings, then the diff preview. */
function summary(result: PatchResult): string {
  const rows = result.files.map((file) =>
    `${OP_LETTERS[file.op]} ${file.path}${
      file.moved_to ? ` -> ${file.moved_to}` : ""
    } (+${file.added} -${file.removed})`
  );
  const parts = [`Applied the patch to ${result.files.length} file(s):\n${rows.join("\n")}`];
  if (result.warnings.length > 0) parts.push(`Warnings:\n${result.warnings.map((w) => `- ${w}`).join("\n")}`);
  if (result.diff !== "") parts.push(result.diff + (result.diff_truncated ? "[diff preview truncated]\n" : ""));
  return parts.join("\n\n");
}

export const applyPatchTool = defineTool({
  name: "apply_patch",
  title: "Apply patch",
  description: "Edit files with a patch in the *** Begin Patch / *** End Patch envelope. Operations: " +
    "'*** Add File: <path>' (every following line starts with '+'), '*** Delete File: <path>', " +
    "'*** Update File: <path>' (optionally followed by '*** Move to: <new path>') with hunks of ' ' context, " +
    "'-' removed and '+' added lines, each hunk opened by '@@' or '@@ <a line of the file>' that anchors it after that " +
    "line; '*** End of File' pins a hunk to the end. Paths are workspace-relative. Every hunk must match exactly one " +
    "place (matches that needed whitespace or punctuation tolerance are reported as warnings); everything is checked " +
    "before anything is written, then all files are installed atomically, or none. Writes inside .git/ are refused.",
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
  handler: async ({ patch }, ctx) => {
    const result = await applyPatch(ctx.workspace, patch);
    return { text: summary(result), data: { ...result } };
  },
});
