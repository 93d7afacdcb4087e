/**
 * The contract between the command runner (src/exec/) and the sandbox
 * (src/policy/): a serialisable description of one child to spawn, and the
 * Spawner that turns it into a pid. Every child of exec_command is spawned
 * through a Spawner, so a sandboxed spawner (a Landlock-restricted worker
 * thread) covers every spawn path, pipes and PTY alike.
 */

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
  /**
   * An fd of this process holding the program to execute instead of looking argv[0] up (the compiled binary's
   * memfd of rg): the kernel resolves `/proc/self/fd/N` only at execve, so the child keeps it until then.
   */
  programFd?: number;
  /** The file to execute instead of looking argv[0] up on PATH (e.g. `/proc/self/fd/3` for an fd passed as 3). */
  executable?: string;
  /**
   * fds of this process the child gets at fixed numbers (target → source, targets from 3 up); every other fd
   * is closed. A memfd program the child executes by `/proc/self/fd/N` must be passed so: the kernel resolves
   * that path only at execve.
   */
  fds?: Record<number, number>;
}

/** Spawns a child in its own session / process group and returns its pid. */
export type Spawner = (request: SpawnRequest) => Promise<number>;
