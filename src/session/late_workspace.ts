/**
 * The workspace of a stdio session whose command line left it open (no
 * `--workspace`, no `CLAUDE_PROJECT_DIR`): once the client has initialized
 * (or its first tool call arrives), ask its roots when it declared them,
 * else take the working directory; then bind it in this process when it is
 * the directory the process started in (its write grant `.` is exactly
 * there), or hand the session over to a process started in it
 * (./handoff.ts). Tool calls wait for this (bounded by the roots timeout).
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 * import type { FdInput } from "../transport/fd_input.ts";
 * import type { LineTransport } from "../transport/stdio.ts";
 * import { openChoice, type OpenOptions, WorkspaceBinding } from "./binding.ts";
 *
 * declare const server: Server;
 * declare const input: FdInput;
 * declare const transport: LineTransport;
 * declare const options: OpenOptions;
 * const binding = new WorkspaceBinding();
 * chooseWorkspaceLate({
 *   server,
 *   binding,
 *   fallback: { dir: Deno.cwd(), source: "cwd" },
 *   startDir: Deno.cwd(),
 *   home: null,
 *   launchCwd: Deno.cwd(),
 *   input,
 *   transport,
 *   bind: async (choice) => {
 *     const outcome = await openChoice(choice, options);
 *     binding.settle(outcome);
 *     return outcome;
 *   },
 * });
 * ```
 */
import { Buffer } from "node:buffer";
import type { Server } from "../sdk/mod.ts";
import type { LineTransport } from "../transport/stdio.ts";
import type { FdInput } from "../transport/fd_input.ts";
import { sessionOf } from "./info.ts";
import { implicitRefusal, type WorkspaceChoice } from "../workspace/resolve.ts";
import { askRoots, watchRootChanges } from "./roots.ts";
import type { Bound, WorkspaceBinding } from "./binding.ts";
import type { Refusal } from "./pin.ts";
import { execInto, replayBytes } from "./handoff.ts";

/** How long a hand-off waits for requests already being answered (tools/list, ping) before it goes ahead. */
const HANDOFF_DRAIN_MS = 2000;

/** What the late resolution works with. */
export interface LateWorkspace {
  server: Server;
  binding: WorkspaceBinding;
  /** The working directory, used when the client has no usable root. */
  fallback: WorkspaceChoice;
  /** Real path of the directory this process started in (where a `.` write grant points). */
  startDir: string;
  /** Real path of the home directory, or null. */
  home: string | null;
  /** Where relative command-line paths were resolved (passed on to a new process). */
  launchCwd: string;
  input: FdInput;
  transport: LineTransport;
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

/** Decides, then binds here or hands over (a failure to move is logged and served from here). */
async function resolveLateWorkspace(late: LateWorkspace): Promise<void> {
  const session = sessionOf(late.server);
  let choice = late.fallback;
  if (session.capabilities?.roots) {
    const { pick, report } = await askRoots(late.server);
    session.roots = report;
    if (pick.choice) choice = pick.choice;
  }
  const real = await Deno.realPath(choice.dir).catch(() => null);
  const servable = real !== null && implicitRefusal({ real, source: choice.source, home: late.home }) === null;
  if (servable && real !== late.startDir) {
    const failure = await handOff(late, { ...choice, dir: real });
    console.error(
      `workcell: cannot restart in ${real} (${failure.message}); serving it from this process, ` +
        "whose Deno write grant does not cover it (server_info.workspace.deno_write_grant)",
    );
  }
  const outcome = await late.bind(choice);
  if ("workspace" in outcome && session.roots) watchRootChanges(late.server, session.roots, outcome.choice.dir);
}

/** Hands the session to a process started in `choice.dir`; returns only when that failed. */
async function handOff(late: LateWorkspace, choice: WorkspaceChoice): Promise<Error> {
  const partial = late.input.pause();
  // Lines of the last chunk read are dispatched in microtasks; after one macrotask every call is waiting here.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const deadline = Date.now() + HANDOFF_DRAIN_MS;
  const answering = () => {
    const held = late.binding.heldIds();
    return [...late.transport.unanswered()].some((id) => !held.has(id));
  };
  while (answering() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await late.transport.flush();
  const { id, protocolVersion, client, capabilities, roots } = sessionOf(late.server);
  const failure = execInto({
    choice,
    session: { id, protocolVersion, client, capabilities, roots },
    replay: Buffer.from(replayBytes(late.binding.waitingCalls(), partial)).toString("base64"),
  }, late.launchCwd);
  late.input.resume();
  return failure;
}
