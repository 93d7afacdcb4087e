/** The workspace of a stdio session whose command line left it open: the client's roots, else the working directory. */
import type { Server } from "../sdk/mod.ts";
import type { WorkspaceChoice } from "../workspace/resolve.ts";
import type { SessionInfo } from "./info.ts";
import { askRoots, watchRootChanges } from "./roots.ts";
import type { Bound, WorkspaceBinding } from "./binding.ts";
import type { Refusal } from "./pin.ts";

/** What the late resolution works with. */
export interface LateWorkspace {
  server: Server;
  /** The server's session record, where the roots asked are reported. */
  session: SessionInfo;
  binding: WorkspaceBinding;
  fallback: WorkspaceChoice;
  /** Pins the choice, builds its services and settles the binding with the outcome. */
  bind(choice: WorkspaceChoice): Promise<Bound | Refusal>;
}

/**
 * Arranges for the workspace to be chosen once: at `notifications/initialized`, or the first tool call if earlier.
 * @example
 * ```ts
 * declare const late: LateWorkspace;
 * chooseWorkspaceLate(late);
 * ```
 */
export function chooseWorkspaceLate(late: LateWorkspace): void {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    resolveLateWorkspace(late).catch((error) => {
      console.error("workcell: choosing the workspace failed:", error);
      late.binding.settle({ choice: null, reason: `choosing the workspace failed: ${(error as Error).message}` });
    });
  };
  late.server.oninitialized = start;
  late.binding.onFirstWait(start);
}

async function resolveLateWorkspace(late: LateWorkspace): Promise<void> {
  const { session } = late;
  let choice = late.fallback;
  if (session.capabilities?.roots) {
    const { pick, report } = await askRoots(late.server);
    session.roots = report;
    if (pick.choice) choice = pick.choice;
  }
  const outcome = await late.bind(choice);
  if ("workspace" in outcome && session.roots) watchRootChanges(late.server, session.roots, outcome.choice.dir);
}
