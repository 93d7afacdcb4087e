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
   * An fd of this process to execute instead of looking argv[0] up (the compiled binary's memfd of rg). It
   * must survive the close of every other fd until execve resolves it, so the child keeps it as fd 3.
   */
  programFd?: number;
}

/** Spawns a child in its own session / process group and returns its pid. */
export type Spawner = (request: SpawnRequest) => Promise<number>;
