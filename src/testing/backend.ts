/**
 * Which file backend this test process runs with (`deno task test` runs the
 * suite once with each backend the system has; WORKCELL_FILE_BACKEND selects
 * the others), and the few places where a backend's run expects less than
 * the fd run, each with why: Linux's fd backend prevents what the others
 * only detect (docs/confinement.md has the table). Every test not named here
 * runs and must pass in every run.
 *
 * @example
 * ```ts
 * Deno.test({
 *   name: "races: exec_command in workdir race/ never starts outside",
 *   ignore: leftOutInThisRun("exec-workdir-race"),
 *   fn: () => {},
 * });
 * ```
 */
import { chosenBackend, FILE_BACKEND_ENV } from "../workspace/workspace.ts";
import { FD_BACKEND } from "../workspace/fd_backend.ts";
import type { BackendName, FileBackend } from "../workspace/handle.ts";
import { PORTABLE_BACKEND } from "../workspace/portable_backend.ts";
import { POSIX_FD_BACKEND } from "../workspace/posix_fd_backend.ts";

/**
 * The backend this process runs the suite with.
 *
 * @example
 * ```ts
 * if (RUN_BACKEND === "portable") console.log("portable run");
 * ```
 */
export const RUN_BACKEND: BackendName = chosenBackend(Deno.env.get(FILE_BACKEND_ENV)).name;

/** A check some backends' runs leave out: which, and why. */
export interface LeftOut {
  backends: readonly BackendName[];
  why: string;
}

/**
 * What each backend's run leaves out, and why.
 *
 * @example
 * ```ts
 * LEFT_OUT["exec-workdir-race"].backends; // ["portable"]
 * ```
 */
export const LEFT_OUT = {
  "outside-reads": {
    backends: ["portable"],
    why: "the race tests' check that nothing outside is even opened or listed (its access times do not move): " +
      "the portable backend acts by path between two checks of it, so in the instant a swap lands between them it " +
      "may open or list the outside object; the check after refuses the result, which the race tests still check " +
      "(no outside name or content in any answer, nothing created outside)",
  },
  "exec-workdir-race": {
    backends: ["portable"],
    why: "the exec_command workdir race: the portable backend gives a command a checked path, not a pinned " +
      "directory, and checks the path again right after the start, so a command started during a swap that is " +
      "undone before that check runs in the swapped-in directory",
  },
} as const satisfies Record<string, LeftOut>;

/**
 * True when this run's backend leaves `what` out (in the fd run, always false).
 *
 * @example
 * ```ts
 * const checkReads = !leftOutInThisRun("outside-reads");
 * ```
 */
export function leftOutInThisRun(what: keyof typeof LEFT_OUT): boolean {
  return (LEFT_OUT[what].backends as readonly BackendName[]).includes(RUN_BACKEND);
}

/**
 * The file backends a unit test runs its cases against: all three on Linux; on macOS the two that run there
 * (Linux's fd backend stands on O_PATH, statx, getdents64 and /proc/self/fd).
 *
 * @example
 * ```ts
 * TEST_BACKENDS.map((backend) => backend.name); // ["fd", "posix-fd", "portable"] on Linux
 * ```
 */
export const TEST_BACKENDS: readonly FileBackend[] = Deno.build.os === "linux"
  ? [FD_BACKEND, POSIX_FD_BACKEND, PORTABLE_BACKEND]
  : [POSIX_FD_BACKEND, PORTABLE_BACKEND];
