/**
 * A TEMPORARY policy with no gates and no sandbox: `sh -c cmd` with the
 * server's environment (minus WORKCELL_* variables), spawned directly. It stands in until the real
 * CommandPolicy (src/policy/) is wired into src/services.ts.
 *
 * @example
 * const registry = new CommandRegistry({ policy: unsandboxedPolicy(), ttySupported: true });
 */
import type { CommandPolicy } from "../policy/policy.ts";
import { directSpawner } from "./spawn.ts";

/** The shell that runs `cmd`. */
const SHELL = "/bin/sh";

/** The server's own secrets (the HTTP bearer token) never reach a child. */
const SERVER_ONLY_ENV = /^WORKCELL_/;

/** A policy that runs every command through the shell, unsandboxed, with `baseEnv` plus the request's env. */
export function unsandboxedPolicy(serverEnv: Record<string, string> = Deno.env.toObject()): CommandPolicy {
  const baseEnv = Object.fromEntries(Object.entries(serverEnv).filter(([name]) => !SERVER_ONLY_ENV.test(name)));
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
