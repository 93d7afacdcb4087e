/**
 * A check after rg ran: the directory it was pointed at still resolves to
 * the same real path. rg follows a symlink given as its root, so a
 * component swapped for a symlink between confine() and the run could have
 * redirected it; such results are refused rather than reported.
 *
 * @example
 * ```ts
 * import { confine, openWorkspace } from "../workspace/confine.ts";
 *
 * const target = await confine(await openWorkspace(Deno.cwd()), "src");
 * await assertStillConfined(target); // throws PATH_OUTSIDE_WORKSPACE if target.abs moved
 * ```
 */
import { ToolError } from "../errors.ts";
import type { ConfinedPath } from "../workspace/confine.ts";

/** Throws PATH_OUTSIDE_WORKSPACE when `target.abs` no longer resolves to itself. */
export async function assertStillConfined(target: ConfinedPath): Promise<void> {
  const real = await Deno.realPath(target.abs).catch(() => null);
  if (real !== target.abs) {
    throw new ToolError("PATH_OUTSIDE_WORKSPACE", `${target.rel} changed (a symlink was swapped in) during the call`, {
      hint: "Retry; symlinks that lead outside the workspace are never followed.",
      details: { path: target.rel },
    });
  }
}
