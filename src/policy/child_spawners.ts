/** The child spawners: the launcher's on Linux (linux_spawners.ts), Seatbelt's on darwin (darwin_spawners.ts). */
import type { Workspace } from "../workspace/workspace.ts";
import { HOST_OS } from "../os/libc.ts";
import { ChildSandboxes } from "./linux_spawners.ts";
import type { SandboxedSpawners } from "./sandboxed_spawners.ts";
import type { ChildOptions } from "./child_requests.ts";
import { SeatbeltSandboxes } from "./darwin_spawners.ts";

/** The spawners of every child of one server process, each inside its sandbox: SandboxedSpawners' public methods. */
export type ChildSpawners = Pick<SandboxedSpawners<unknown>, keyof SandboxedSpawners<unknown>>;

/**
 * This system's child spawners for the workspace `ws`: Seatbelt's on darwin, the launcher's on Linux.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { ChildOptions } from "./child_requests.ts";
 * declare const options: ChildOptions;
 * const spawner = createChildSpawners(openWorkspace("/repo"), options).ripgrepSpawner();
 * ```
 */
export function createChildSpawners(ws: Workspace, options: ChildOptions): ChildSpawners {
  return HOST_OS === "darwin" ? new SeatbeltSandboxes(ws, options) : new ChildSandboxes(ws, options);
}
