/**
 * Hardening of the server process itself, applied once at start-up.
 *
 * @example
 * ```ts
 * makeNonDumpable(); // a same-user process can no longer ptrace the server or read its memory
 * ```
 */
import { HOST_OS, libc } from "./libc.ts";

const PR_SET_DUMPABLE = 4;

/**
 * Makes the server non-dumpable (PR_SET_DUMPABLE 0): ptrace of it, and its
 * /proc/<pid>/mem and environ, then need CAP_SYS_PTRACE, which no sandboxed
 * child has. Landlock already keeps a sandboxed child from tracing the
 * server; this also holds where Landlock is missing. Returns whether it
 * took: never on darwin, which has no prctl (there the Seatbelt profile
 * gives a child no access to other processes, and taking another process's
 * task port needs the debugging entitlement).
 */
export function makeNonDumpable(): boolean {
  if (HOST_OS === "darwin") return false;
  return libc().prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
}
