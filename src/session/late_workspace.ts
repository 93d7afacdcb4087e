/**
 * The workspace of a stdio session whose command line left it open (no
 * `--workspace`, no `CLAUDE_PROJECT_DIR`): once the client has initialized
 * (or its first tool call arrives), ask its roots when it declared them,
 * else take the working directory, and bind it in this process. Tool calls
 * wait for this (bounded by the roots timeout).
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 * import { openChoice, type OpenOptions, WorkspaceBinding } from "./binding.ts";
 *
 * declare const server: Server;
 * declare const options: OpenOptions;
 * const binding = new WorkspaceBinding();
 * chooseWorkspaceLate({
 *   server,
 *   binding,
 *   fallback: { dir: Deno.cwd(), source: "cwd" },
 *   bind: async (choice) => {
 *     const outcome = await openChoice(choice, options);
 *     binding.settle(outcome);
 *     return outcome;
 *   },
 * });
 * ```
 */
import type { Server } from "../sdk/mod.ts";
import type { WorkspaceChoice } from "../workspace/resolve.ts";
import { sessionOf } from "./info.ts";
import { askRoots, watchRootChanges } from "./roots.ts";
import type { Bound, WorkspaceBinding } from "./binding.ts";
import type { Refusal } from "./pin.ts";

/** What the late resolution works with. */
export interface LateWorkspace {
  server: Server;
  binding: WorkspaceBinding;
  /** The working directory, used when the client has no usable root. */
  fallback: WorkspaceChoice;
  /** Pins the choice, builds its services and settles the binding with the outcome. */
  bind(choice: WorkspaceChoice): Promise<Bound | Refusal>;
}

/**
 * Arranges for the workspace to be chosen once: when the client sends
 * `notifications/initialized`, or at its first tool call if that comes first.
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

/** Asks the roots (when the client has them), then binds the first usable one or the working directory. */
async function resolveLateWorkspace(late: LateWorkspace): Promise<void> {
  const session = sessionOf(late.server);
  let choice = late.fallback;
  if (session.capabilities?.roots) {
    const { pick, report } = await askRoots(late.server);
    session.roots = report;
    if (pick.choice) choice = pick.choice;
  }
  const outcome = await late.bind(choice);
  if ("workspace" in outcome && session.roots) watchRootChanges(late.server, session.roots, outcome.choice.dir);
}
