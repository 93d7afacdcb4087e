/**
 * What the command runner, the git tools and rg ask of the sandbox of their
 * children, whichever system enforces it: the launcher on Linux
 * (children.ts: Landlock, seccomp, namespaces) or Seatbelt on darwin
 * (seatbelt_children.ts: `sandbox-exec`). One is chosen per server process,
 * at start-up, by {@linkcode createChildSpawners}.
 *
 * @example
 * ```ts
 * import { rgPath } from "@vscode/ripgrep";
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import { probeLandlock } from "./landlock_probe.ts";
 *
 * const children = createChildSpawners(openWorkspace(Deno.cwd()), {
 *   tmpdir: null,
 *   env: Deno.env.toObject(),
 *   landlock: probeLandlock(),
 *   ripgrep: { path: rgPath, fd: null },
 * });
 * const report = await children.report("safe", new Set(), []); // what each kind of child gets here
 * ```
 */
import type { Mode } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Spawner } from "../os/spawn_request.ts";
import { HOST_OS } from "../os/libc.ts";
import type { GitImage, SandboxDescription } from "./child_policy.ts";
import { ChildSandboxes } from "./children.ts";
import type { SandboxReport } from "./sandboxed_spawners.ts";
import type { ChildOptions } from "./child_requests.ts";
import { SeatbeltSandboxes } from "./seatbelt_children.ts";

/** The spawners of every child of one server process, each inside its sandbox. */
export interface ChildSpawners {
  /** The git the git tools run, found once on the server's PATH; null when there is none. */
  gitImage(): Promise<GitImage | null>;
  /** Remembers git dirs a git tool resolved inside the workspace, so safe-mode commands see them read-only too. */
  registerGitDirs(paths: readonly string[]): void;
  /** The spawner of exec_command's children in `mode` with a session's `grants`. */
  commandSpawner(mode: Mode, grants: ReadonlySet<string>): Spawner;
  /** What the latest command started in `mode` with `grants` runs under, or null before the first. */
  appliedCommandSandbox(mode: Mode, grants: ReadonlySet<string>): SandboxDescription | null;
  /** The spawner of git for a repository whose git dirs outside the workspace (`readable`) were trusted. */
  gitSpawner(git: GitImage, readable: string[]): Spawner;
  /** The spawner of rg. */
  ripgrepSpawner(): Spawner;
  /** Whether rg's reads are held beneath the workspace by the kernel (else its answers are checked afterwards). */
  ripgrepConfined(): Promise<boolean>;
  /** What each kind of child of a session in `mode` with `grants` gets on this machine (check_exec_environment). */
  report(mode: Mode, grants: ReadonlySet<string>, trustedReadable: string[]): Promise<SandboxReport>;
}

/**
 * This system's child spawners for the workspace `ws`: Seatbelt's on darwin, the launcher's on Linux.
 *
 * @example
 * ```ts
 * import { rgPath } from "@vscode/ripgrep";
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import { probeLandlock } from "./landlock_probe.ts";
 *
 * const options = { tmpdir: null, env: {}, landlock: probeLandlock(), ripgrep: { path: rgPath, fd: null } };
 * const spawner = createChildSpawners(openWorkspace("/repo"), options).ripgrepSpawner();
 * ```
 */
export function createChildSpawners(ws: Workspace, options: ChildOptions): ChildSpawners {
  return HOST_OS === "darwin" ? new SeatbeltSandboxes(ws, options) : new ChildSandboxes(ws, options);
}
