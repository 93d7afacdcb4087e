/** The runner/sandbox contract: every exec_command child goes through a Spawner, so a sandboxed one covers all. */

/** One child to spawn; plain data so it can cross a worker boundary. */
export interface SpawnRequest {
  /** argv[0] is looked up on env.PATH (posix_spawnp semantics). */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** File descriptors (already open in this process) to install as the child's 0, 1 and 2. */
  stdio: { stdin: number; stdout: number; stderr: number };
  /** PTY slave path to open as fd 0/1/2 after setsid (making it the controlling terminal); overrides stdio. */
  ttySlave?: string;
  /** An fd holding the program to run (rg's memfd), which the child keeps until execve resolves `/proc/self/fd/N`. */
  programFd?: number;
  /** The file to execute instead of looking argv[0] up on PATH (e.g. `/proc/self/fd/3` for an fd passed as 3). */
  executable?: string;
  /** fds the child gets at fixed numbers (target → source, targets from 3 up); every other fd is closed. */
  fds?: Record<number, number>;
}

/** Spawns a child in its own session / process group and returns its pid. */
export type Spawner = (request: SpawnRequest) => Promise<number>;
