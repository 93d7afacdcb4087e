/**
 * Binding's first half (./binding.ts): pin the directory by an fd and apply the refusal rules. It loads nothing heavy,
 * so a stdio server can pin its command line's workspace (or exit 2) before answering initialize.
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
 * Pins `choice` or says why not: not a directory, or `/` or `home` (a real path or null) and not from `--workspace`.
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
