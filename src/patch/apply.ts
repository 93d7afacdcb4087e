/**
 * apply_patch as one call: parse, match every hunk, commit all or nothing,
 * then describe what changed. Knows nothing of MCP.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * const ws = openWorkspace(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${ws.root}/old.txt`, "a\nb\nc\n");
 * const result = await applyPatch(ws, "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch");
 * result.files; // [{ op: "delete", path: "old.txt", moved_to: null, added: 0, removed: 3 }]
 * ```
 */
import type { Workspace } from "../workspace/workspace.ts";
import { commitChanges } from "./commit.ts";
import { type FsOps, HANDLE_OPS } from "./fs_ops.ts";
import { type FileResult, planPatch } from "./plan.ts";
import { parsePatch } from "./parse.ts";
import { renderPreview } from "./preview.ts";

/** The outcome of a successful patch. */
export interface PatchResult {
  files: FileResult[];
  /** Bounded unified diff of the changes. */
  diff: string;
  diff_truncated: boolean;
  /** Tolerant matches and other things the agent should know. */
  warnings: string[];
}

/**
 * Applies `text` to the workspace; throws a ToolError and leaves the tree
 * untouched when anything fails.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * const ws = openWorkspace(await Deno.makeTempDir());
 * await applyPatch(ws, "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch");
 * ```
 */
export async function applyPatch(ws: Workspace, text: string, fs: FsOps = HANDLE_OPS): Promise<PatchResult> {
  const plan = await planPatch(ws, parsePatch(text));
  await commitChanges(ws, plan.changes, fs);
  const { diff, truncated } = renderPreview(plan.previews);
  return { files: plan.files, diff, diff_truncated: truncated, warnings: plan.warnings };
}
