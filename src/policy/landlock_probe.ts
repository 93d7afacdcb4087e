/**
 * Asks the kernel which Landlock ABI it offers, without restricting anything.
 *
 * @example
 * const { abi, reason } = probeLandlock(); // { abi: 7, reason: null } on Linux 6.18
 */

/** The probe's answer: an ABI number, or null with the reason. */
export interface LandlockProbe {
  abi: number | null;
  reason: string | null;
}

const SYS_LANDLOCK_CREATE_RULESET = 444;
const LANDLOCK_CREATE_RULESET_VERSION = 1;

/** `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)` through libc's syscall(). */
export function probeLandlock(): LandlockProbe {
  if (Deno.build.os !== "linux") return { abi: null, reason: `Landlock is Linux-only (this is ${Deno.build.os})` };
  if (Deno.build.arch !== "x86_64") {
    return { abi: null, reason: `syscall numbers are wired for x86_64 only (${Deno.build.arch})` };
  }
  let lib: Deno.DynamicLibrary<{ syscall: { parameters: ["i64", "pointer", "u64", "u32"]; result: "i64" } }> | null =
    null;
  try {
    lib = Deno.dlopen("libc.so.6", {
      syscall: { parameters: ["i64", "pointer", "u64", "u32"], result: "i64" },
    });
    const abi = Number(
      lib.symbols.syscall(BigInt(SYS_LANDLOCK_CREATE_RULESET), null, 0n, LANDLOCK_CREATE_RULESET_VERSION),
    );
    if (abi > 0) return { abi, reason: null };
    return { abi: null, reason: "the kernel refused landlock_create_ruleset (Landlock disabled or unsupported)" };
  } catch (error) {
    return { abi: null, reason: `cannot call libc: ${(error as Error).message}` };
  } finally {
    lib?.close();
  }
}
