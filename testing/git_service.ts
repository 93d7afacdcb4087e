import { rgPath } from "@vscode/ripgrep";
import { openWorkspace } from "../src/workspace/workspace.ts";
import { createChildSpawners } from "../src/policy/child_spawners.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";
import { GitService } from "../src/git/service.ts";
import { Reactor } from "../src/os/reactor.ts";

/**
 * The git tools' GitService on `root`, children probed as the server would; dispose it to release the pinned fd.
 * @example
 * ```ts
 * using git = gitServiceFor(Deno.cwd());
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
