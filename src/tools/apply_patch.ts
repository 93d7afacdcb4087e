import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { applyPatch, type PatchResult } from "../patch/apply.ts";
import { dataBudget, fitCount, jsonChars } from "../paging/budget.ts";
import { layoutText } from "../paging/text_layout.ts";

const OP_LETTERS = { add: "A", update: "M", delete: "D", move: "R" } as const;
/** Bytes of warnings the text shows at most (the rest are counted). */
const TEXT_WARNING_BYTES = 2048;

function summary(result: PatchResult): string {
  const rows = result.files.map((file) =>
    `${OP_LETTERS[file.op]} ${file.path}${
      file.moved_to ? ` -> ${file.moved_to}` : ""
    } (+${file.added} -${file.removed})`
  );
  const warnings: string[] = [];
  let used = 0;
  for (const warning of result.warnings) {
    used += new TextEncoder().encode(warning).length + 3;
    if (used > TEXT_WARNING_BYTES) {
      warnings.push(`- … and ${result.warnings.length - warnings.length} more warnings (structuredContent)`);
      break;
    }
    warnings.push(`- ${warning}`);
  }
  const footer = [
    ...(warnings.length > 0 ? ["", "Warnings:", ...warnings] : []),
    ...(result.diff !== "" ? ["", result.diff + (result.diff_truncated ? "[diff preview truncated]" : "")] : []),
  ];
  return layoutText({
    header: (shown) =>
      `Applied the patch to ${result.files.length} file(s)${shown < rows.length ? `, ${shown} listed` : ""}:`,
    items: rows,
    footer: () => footer,
    next: () => null,
  }).text;
}

/** The result within the ceiling: the file and warning lists cut when they alone would pass it (both counted). */
function bounded(result: PatchResult, maxChars: number) {
  const data = { ...result, total_files: result.files.length, total_warnings: result.warnings.length };
  if (jsonChars(data) <= maxChars) return data;
  const files = fitCount(result.files, maxChars, {
    fixed: jsonChars({ ...data, files: [], warnings: [] }),
    more: false,
  });
  const listed = { ...data, files: result.files.slice(0, files), warnings: [] };
  const warnings = fitCount(result.warnings, maxChars, { fixed: jsonChars(listed), more: false });
  return { ...listed, warnings: result.warnings.slice(0, warnings) };
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
    })).describe("The files patched (the first total_files, as many as fit the result ceiling)."),
    total_files: z.int(),
    diff: z.string(),
    diff_truncated: z.boolean(),
    warnings: z.array(z.string()).describe("The first total_warnings warnings, as many as fit the result ceiling."),
    total_warnings: z.int(),
  }),
  handler: async ({ patch }, ctx) => {
    const result = await applyPatch(ctx.workspace, patch);
    return { text: summary(result), data: bounded(result, dataBudget(ctx.config.maxResultChars)) };
  },
});
