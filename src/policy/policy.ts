/** The one interface the command runner asks before spawning; it runs exactly the plan and spawner it gets back. */
import type { Spawner } from "../os/spawn_request.ts";

/** What exec_command was asked to run. */
export interface CommandRequest {
  cmd: string;
  /** Absolute, already confined working directory (the gate resolves relative arguments against it). */
  cwd: string;
  /** The workdir handle's `childCwd()` (Linux: `/proc/self/fd/N`, open until spawned), immune to later path swaps. */
  chdir: string;
  env: Record<string, string>;
  tty: boolean;
  /** Granted to this session through request_permissions. */
  grants: ReadonlySet<string>;
}

/** How to run it: argv (no shell in safe mode, `sh -c` elsewhere), env and spawner, in the request's cwd. */
export interface LaunchPlan extends Pick<CommandRequest, "cwd" | "chdir"> {
  argv: string[];
  env: Record<string, string>;
  /** Spawns inside the mode's sandbox (or none in dangerous mode). */
  spawner: Spawner;
}

/** Decides whether and how a command runs; throws ToolError COMMAND_BLOCKED to refuse. */
export interface CommandPolicy {
  plan(request: CommandRequest): Promise<LaunchPlan>;
}
