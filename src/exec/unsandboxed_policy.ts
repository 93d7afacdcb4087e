/**
 * A TEMPORARY policy with no gates and no sandbox: `sh -c cmd` with the
 * server's environment, spawned directly. It stands in until the real
 * CommandPolicy (src/policy/) is wired into src/services.ts.
 *
 * @example
 * const registry = new CommandRegistry({ policy: unsandboxedPolicy(), ttySupported: true });
 */
import type { CommandPolicy } from "../policy/policy.ts";
import { directSpawner } from "./spawn.ts";

/** The shell that runs `cmd`. */
const SHELL = "/bin/sh";

/** A policy that runs every command through the shell, unsandboxed, with `baseEnv` plus the request's env. */
export function unsandboxedPolicy(baseEnv: Record<string, string> = Deno.env.toObject()): CommandPolicy {
  return {
    plan: (request) =>
      Promise.resolve({
        argv: [SHELL, "-c", request.cmd],
        env: { ...baseEnv, ...request.env },
        cwd: request.cwd,
        spawner: directSpawner,
      }),
  };
}
