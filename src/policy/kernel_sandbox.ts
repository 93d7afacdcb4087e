/** Which kernel sandbox confines the server's children here, as check_exec_environment's dependency line. */
import { HOST_OS } from "../os/libc.ts";
import { SANDBOX_EXEC } from "../os/seatbelt.ts";
import type { LandlockProbe } from "./landlock_probe.ts";
import { SEATBELT_MISSING } from "./darwin_spawners.ts";

/** One line of the dependency list: what it is, whether it is here, what needs it. */
export type Dependency = { name: string; available: boolean; detail: string; needed_by: string };

/**
 * What confines children on `os` (the server's by default), as a dependency line: Seatbelt on darwin (macOS has no
 * Landlock), Landlock on Linux.
 * @example
 * ```ts
 * hostKernelSandbox({ abi: 7, reason: null }, [], "linux").detail; // "ABI 7"
 * ```
 */
export function hostKernelSandbox(
  landlock: LandlockProbe,
  missing: readonly string[],
  os: typeof HOST_OS = HOST_OS,
): Dependency {
  const neededBy = "kernel confinement of commands (safe and trusted mode), git and rg" +
    (missing.length > 0 ? ` (missing now: ${missing.join("; ")})` : "");
  if (os === "darwin") {
    const refused = missing.find((line) => line.startsWith(`${SEATBELT_MISSING}:`));
    return {
      name: "Seatbelt",
      available: refused === undefined,
      detail: refused === undefined
        ? `${SANDBOX_EXEC} runs workcell's profiles (macOS has no Landlock)`
        : `${refused}; commands, git and rg run unconfined (macOS has no Landlock)`,
      needed_by: neededBy,
    };
  }
  return {
    name: "Landlock",
    available: landlock.abi !== null,
    detail: landlock.abi !== null ? `ABI ${landlock.abi}` : landlock.reason ?? "unavailable",
    needed_by: neededBy,
  };
}
