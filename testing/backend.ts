import { FD_BACKEND } from "../src/workspace/fd_backend.ts";
import type { FileBackend } from "../src/workspace/handle.ts";
import { POSIX_FD_BACKEND } from "../src/workspace/posix_fd_backend.ts";

/** The backends unit tests run each case against: on Linux its own and the POSIX one (macOS's); on macOS the latter. */
export const TEST_BACKENDS: readonly FileBackend[] = Deno.build.os === "linux"
  ? [FD_BACKEND, POSIX_FD_BACKEND]
  : [POSIX_FD_BACKEND];
