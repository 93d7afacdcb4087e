/**
 * Which file backend this test process runs with (`deno task test` runs the
 * suite once with each; the portable run sets WORKCELL_FILE_BACKEND), and
 * the few places where the portable run expects less than the fd run, each
 * with why: the fd backend prevents what the portable one only detects
 * (docs/confinement.md has the table). Every test not named here runs and
 * must pass in both runs.
 *
 * @example
 * ```ts
 * Deno.test({
 *   name: "races: exec_command in workdir race/ never starts outside",
 *   ignore: leftOutWhenPortable("exec-workdir-race"),
 *   fn: () => {},
 * });
 * ```
 */
import { chosenBackend, FILE_BACKEND_ENV } from "../workspace/workspace.ts";
import { FD_BACKEND } from "../workspace/fd_backend.ts";
import type { FileBackend } from "../workspace/handle.ts";
import { PORTABLE_BACKEND } from "../workspace/portable_backend.ts";

/**
 * Whether this process runs the suite with the portable backend (selected on Linux; the only one on macOS).
 *
 * @example
 * ```ts
 * if (PORTABLE_RUN) console.log("portable run");
 * ```
 */
export const PORTABLE_RUN = chosenBackend(Deno.env.get(FILE_BACKEND_ENV)).name === "portable";

/**
 * What the portable run leaves out, and why.
 *
 * @example
 * ```ts
 * Object.keys(PORTABLE_EXCEPTIONS); // ["outside-reads", "exec-workdir-race"]
 * ```
 */
export const PORTABLE_EXCEPTIONS = {
  "outside-reads": "the race tests' check that nothing outside is even opened or listed (its access times do not " +
    "move): the portable backend acts by path between two checks of it, so in the instant a swap lands between " +
    "them it may open or list the outside object; the check after refuses the result, which the race tests still " +
    "check (no outside name or content in any answer, nothing created outside)",
  "exec-workdir-race": "the exec_command workdir race: the portable backend gives the command a checked path, not a " +
    "pinned directory, and checks it again right after the start, so a command started during a swap that is " +
    "undone before that check runs in the swapped-in directory",
} as const;

/**
 * True when the portable run leaves `what` out (in the fd run, always false).
 *
 * @example
 * ```ts
 * const checkReads = !leftOutWhenPortable("outside-reads");
 * ```
 */
export function leftOutWhenPortable(_what: keyof typeof PORTABLE_EXCEPTIONS): boolean {
  return PORTABLE_RUN;
}

/**
 * The file backends a unit test runs its cases against: both on Linux, the portable one alone on macOS (the fd
 * backend stands on /proc/self/fd, statx, getdents64 and openat2).
 *
 * @example
 * ```ts
 * TEST_BACKENDS.map((backend) => backend.name); // ["fd", "portable"] on Linux
 * ```
 */
export const TEST_BACKENDS: readonly FileBackend[] = Deno.build.os === "linux"
  ? [FD_BACKEND, PORTABLE_BACKEND]
  : [PORTABLE_BACKEND];
