/**
 * The file backends a unit test runs its cases against: on Linux both (its
 * own fd backend and the POSIX fd backend, macOS's, which runs here too), on
 * macOS the POSIX one (Linux's stands on O_PATH, statx, getdents64 and
 * /proc/self/fd). End-to-end tests run with the system's own backend; the
 * POSIX one's end-to-end file is tests/posix_fd_backend_test.ts.
 *
 * @example
 * ```ts
 * TEST_BACKENDS.map((backend) => backend.name); // ["fd", "posix-fd"] on Linux
 * ```
 */
import { FD_BACKEND } from "../workspace/fd_backend.ts";
import type { FileBackend } from "../workspace/handle.ts";
import { POSIX_FD_BACKEND } from "../workspace/posix_fd_backend.ts";

/** The backends this system has, for unit tests that run each case against each. */
export const TEST_BACKENDS: readonly FileBackend[] = Deno.build.os === "linux"
  ? [FD_BACKEND, POSIX_FD_BACKEND]
  : [POSIX_FD_BACKEND];
