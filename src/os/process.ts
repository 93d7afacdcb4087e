import { HOST_OS, libc } from "./libc.ts";

const PR_SET_DUMPABLE = 4;

/**
 * Makes the server non-dumpable: ptrace of it and its /proc/<pid>/mem and environ then need CAP_SYS_PTRACE, which no
 * sandboxed child has, even without Landlock. False on darwin (no prctl; Seatbelt keeps children from other processes).
 */
export function makeNonDumpable(): boolean {
  if (HOST_OS === "darwin") return false;
  return libc().prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
}
