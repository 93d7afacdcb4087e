/**
 * The first half of binding a workspace: pin the chosen directory by an fd
 * and apply the refusal rules, without building any service. It loads
 * nothing heavy, so a stdio server can pin a workspace named on its command
 * line (and exit 2 when it cannot serve it) before it answers initialize;
 * the services follow once the rest of the server has loaded
 * (./binding.ts).
 *
 * @example
 * ```ts
 * const pinned = pinChoice({ dir: "/home/u/app", source: "flag" }, "/home/u");
 * if ("reason" in pinned) console.error(pinned.reason);
 * ```
 */
import { openWorkspace, type Workspace, WorkspaceError } from "../workspace/workspace.ts";
import { implicitRefusal, SOURCE_LABELS, type WorkspaceChoice } from "../workspace/resolve.ts";

/** A chosen directory, pinned. */
export interface Pinned {
  choice: WorkspaceChoice;
  workspace: Workspace;
}

/** Why there is no workspace. */
export interface Refusal {
  /** The directory that was refused, or null when nothing named one. */
  choice: WorkspaceChoice | null;
  reason: string;
}

/**
 * Pins `choice`, or says why it cannot be served: it does not exist or is not a directory, or it is `/` or the
 * home directory (`home`, a real path or null) and came from anywhere but `--workspace`.
 *
 * @example
 * ```ts
 * pinChoice({ dir: "/", source: "cwd" }, null); // { choice, reason: "… never served implicitly …" }
 * ```
 */
export function pinChoice(choice: WorkspaceChoice, home: string | null): Pinned | Refusal {
  let workspace: Workspace;
  try {
    workspace = openWorkspace(choice.dir);
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    return { choice, reason: `${error.message} (from ${SOURCE_LABELS[choice.source]})` };
  }
  const reason = implicitRefusal({ real: workspace.root, source: choice.source, home });
  if (reason !== null) {
    workspace[Symbol.dispose]();
    return { choice, reason };
  }
  return { choice, workspace };
}
