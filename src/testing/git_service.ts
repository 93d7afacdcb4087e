/** The git tools' service for unit tests of the git modules, without a server. */
import { rgPath } from "@vscode/ripgrep";
import { openWorkspace } from "../workspace/workspace.ts";
import { createChildSpawners } from "../policy/child_spawners.ts";
import { probeLandlock } from "../policy/landlock_probe.ts";
import { GitService } from "../git/service.ts";
import { Reactor } from "../os/reactor.ts";

/**
 * The git tools' GitService on a workspace at `root` (its children probed as the server would), for tests of
 * the git modules without a server. Dispose it to release the workspace's pinned fd.
 *
 * @example
 * ```ts
 * using git = gitServiceFor(Deno.cwd());
 * git.locate(Deno.cwd()).readable; // the git dirs the runs may read
 * ```
 */
export function gitServiceFor(root: string): GitService & Disposable {
  const ws = openWorkspace(root);
  const children = createChildSpawners(ws, {
    tmpdir: null,
    env: Deno.env.toObject(),
    landlock: probeLandlock(),
    ripgrep: { path: rgPath, fd: null },
  });
  return Object.assign(new GitService(ws, children, new Reactor()), { [Symbol.dispose]: () => ws[Symbol.dispose]() });
}
