/**
 * What the command runner, the git tools and rg ask of the sandbox of their
 * children, whichever system enforces it: the launcher on Linux
 * (linux_spawners.ts: Landlock, seccomp, namespaces) or Seatbelt on darwin
 * (darwin_spawners.ts: `sandbox-exec`). One is chosen per server process,
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
import type { Workspace } from "../workspace/workspace.ts";
import { HOST_OS } from "../os/libc.ts";
import { ChildSandboxes } from "./linux_spawners.ts";
import type { ChildSpawners } from "./sandboxed_spawners.ts";
import type { ChildOptions } from "./child_requests.ts";
import { SeatbeltSandboxes } from "./darwin_spawners.ts";

export type { ChildSpawners };

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
