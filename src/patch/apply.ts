import type { Workspace } from "../workspace/workspace.ts";
import { commitChanges } from "./commit.ts";
import { type FsOps, HANDLE_OPS } from "./fs_ops.ts";
import type { DurabilityOptions } from "./durability.ts";
import { type Plan, planPatch } from "./plan.ts";
import { parsePatch } from "./parse.ts";
import { renderPreview } from "./preview.ts";

/** The outcome of a successful patch: the plan's files and warnings (tolerant matches), and the diff preview. */
export type PatchResult = Pick<Plan, "files" | "warnings"> & { diff: string; diff_truncated: boolean };

/**
 * apply_patch as one call, knowing nothing of MCP: parse, match every hunk, commit all or nothing, describe the
 * changes. Throws a ToolError, leaving the tree untouched, when anything fails.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * const ws = openWorkspace(await Deno.makeTempDir());
 * await applyPatch(ws, "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch");
 * ```
 */
export async function applyPatch(
  ws: Workspace,
  text: string,
  fs: FsOps = HANDLE_OPS,
  durability: DurabilityOptions = {},
): Promise<PatchResult> {
  const plan = await planPatch(ws, parsePatch(text));
  await commitChanges(ws, plan.changes, fs, durability);
  const { diff, truncated } = renderPreview(plan.previews);
  return { files: plan.files, diff, diff_truncated: truncated, warnings: plan.warnings };
}
