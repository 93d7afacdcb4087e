/**
 * The one interface the command runner asks before spawning anything.
 * The runner stays policy-free: it hands the request over and runs exactly
 * the plan it gets back, with the spawner it gets back.
 */
import type { Spawner } from "../os/spawn_request.ts";

/** What exec_command was asked to run. */
export interface CommandRequest {
  cmd: string;
  /** Absolute, already confined working directory (the gate resolves relative arguments against it). */
  cwd: string;
  /**
   * The path the child changes into: the workdir handle's `childCwd()` (on Linux `/proc/self/fd/N`, its fd open
   * until the spawn returns), so the child starts in this very directory even if the path is swapped since.
   */
  chdir: string;
  /** Extra environment the caller asked for. */
  env: Record<string, string>;
  tty: boolean;
  /** Permissions granted to this session through request_permissions. */
  grants: ReadonlySet<string>;
}

/** How to run it: argv (no shell in safe mode, `sh -c` elsewhere), env and spawner. */
export interface LaunchPlan {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** What the child changes into (see {@linkcode CommandRequest.chdir}). */
  chdir: string;
  /** Spawns inside the mode's sandbox (or none in dangerous mode). */
  spawner: Spawner;
}

/** Decides whether and how a command runs; throws ToolError COMMAND_BLOCKED to refuse. */
export interface CommandPolicy {
  plan(request: CommandRequest): Promise<LaunchPlan>;
}
