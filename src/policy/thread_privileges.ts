/**
 * Hardening the sandbox thread beyond Landlock. Children spawned by the
 * sandbox worker share a Landlock domain with that worker thread, which is
 * a thread of the server: Landlock's ptrace and signal scoping cannot tell
 * them apart. As the same uid (root here) a child could otherwise
 * `ptrace(PTRACE_ATTACH)` the worker thread and so the whole server. Two
 * steps close that:
 * - the server process is made non-dumpable (PR_SET_DUMPABLE 0), so ptrace
 *   by a same-uid process needs CAP_SYS_PTRACE;
 * - the worker thread drops CAP_SYS_PTRACE and every other capability
 *   children do not need from its bounding set (per thread, inherited by
 *   every child), so even root children cannot regain them at execve.
 * Signals are closed by command_domain.ts (a nested domain per command);
 * this module also covers the case without it (no perl, ABI < 6).
 *
 * @example
 * dropChildPrivileges(); // in the sandbox worker, before spawning anything
 */

const PR_SET_DUMPABLE = 4;
const PR_CAPBSET_DROP = 24;

/** Capabilities children keep: ownership and file-permission overrides (so root in a container still works on its files), uid/gid changes and low ports. */
export const KEPT_CAPABILITIES = new Set([0, 1, 2, 3, 4, 6, 7, 10]);

/** The highest capability number this kernel knows. */
function lastCapability(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/sys/kernel/cap_last_cap").trim());
  } catch {
    return 40;
  }
}

/** What {@linkcode dropChildPrivileges} achieved. */
export interface PrivilegeDrop {
  nonDumpable: boolean;
  /** Capabilities removed from the thread's bounding set (none when not privileged to). */
  dropped: number[];
}

/** Makes the process non-dumpable and drops capabilities from the calling thread's bounding set. */
export function dropChildPrivileges(): PrivilegeDrop {
  const lib = Deno.dlopen("libc.so.6", {
    prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  });
  try {
    const nonDumpable = lib.symbols.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
    const dropped: number[] = [];
    for (let cap = 0; cap <= lastCapability(); cap++) {
      if (KEPT_CAPABILITIES.has(cap)) continue;
      if (lib.symbols.prctl(PR_CAPBSET_DROP, BigInt(cap), 0n, 0n, 0n) === 0) dropped.push(cap);
    }
    return { nonDumpable, dropped };
  } finally {
    lib.close();
  }
}
