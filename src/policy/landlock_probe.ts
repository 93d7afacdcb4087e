import { libc } from "../os/libc.ts";
import { syscallTable } from "../os/syscalls.ts";

/** The probe's answer: an ABI number, or null with the reason. */
export type LandlockProbe = ReturnType<typeof probeLandlock>;

const LANDLOCK_CREATE_RULESET_VERSION = 1;

/**
 * `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`: the kernel's ABI, without restricting anything.
 * Its syscall numbers are the generic table's on every architecture (444–446), so the probe is too.
 * @example
 * ```ts
 * const { abi, reason } = probeLandlock(); // { abi: 7, reason: null } on Linux 6.18
 * ```
 */
export function probeLandlock() {
  if (Deno.build.os !== "linux") return { abi: null, reason: `Landlock is Linux-only (this is ${Deno.build.os})` };
  let nr: number;
  try {
    nr = syscallTable().landlock_create_ruleset;
  } catch (error) {
    return { abi: null, reason: (error as Error).message };
  }
  const abi = Number(libc().syscall3(BigInt(nr), null, 0n, LANDLOCK_CREATE_RULESET_VERSION));
  if (abi > 0) return { abi, reason: null };
  return { abi: null, reason: "the kernel refused landlock_create_ruleset (Landlock disabled or unsupported)" };
}
