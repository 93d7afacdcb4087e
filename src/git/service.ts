/**
 * The git of the git tools for one server process: where each repository's
 * git dirs are and whether git may read them (location.ts), and runs of git
 * in the sandbox child_sandbox_plan.ts plans for it (runner.ts).
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { ChildSpawners } from "../policy/child_spawners.ts";
 * import { Reactor } from "../os/reactor.ts";
 *
 * declare const children: ChildSpawners; // the sandboxes of the workspace's children
 * const workspace = openWorkspace(Deno.cwd());
 * const git = new GitService(workspace, children, new Reactor());
 * const location = git.locate(workspace.root);
 * const run = await git.run(location, { cwd: workspace.root, args: ["rev-parse", "HEAD"] });
 * ```
 */
import { ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { isInside } from "../workspace/confine.ts";
import type { ChildSpawners } from "../policy/child_spawners.ts";
import type { Reactor } from "../os/reactor.ts";
import { locateRepository, type RepositoryLocation, trustedLocation } from "./location.ts";
import { type GitRequest, type GitRun, runGit } from "./runner.ts";

/** The git tools' access to git. */
export class GitService {
  readonly ws: Workspace;
  /** The repository the workspace root was in at start-up, when its git dirs lie outside the workspace. */
  readonly trusted: RepositoryLocation | null;
  readonly #children: ChildSpawners;
  readonly #reactor: Reactor;

  constructor(ws: Workspace, children: ChildSpawners, reactor: Reactor) {
    this.ws = ws;
    this.#children = children;
    this.#reactor = reactor;
    this.trusted = trustedLocation(ws.root);
  }

  /**
   * The repository containing `dir` (a real directory inside the workspace),
   * refused when its git dir is outside and not trusted (location.ts). Its
   * git dirs inside the workspace are remembered, so safe-mode commands see
   * them read-only.
   */
  locate(dir: string): RepositoryLocation {
    const location = locateRepository(this.ws.root, dir, this.trusted);
    this.#children.registerGitDirs(
      [location.gitDir, location.commonDir].filter((gitDir) => isInside(this.ws.root, gitDir)),
    );
    return location;
  }

  /** Runs git for `location`'s repository, in git's sandbox. */
  async run(location: RepositoryLocation, request: GitRequest): Promise<GitRun> {
    const image = await this.#children.gitImage();
    if (image === null) {
      throw new ToolError("GIT_FAILED", "git is not installed (no git on the server's PATH)", {
        hint: "Install git, or start workcell with a PATH that has it; check_exec_environment shows what is missing.",
      });
    }
    const spawner = this.#children.gitSpawner(image, location.readable);
    return await runGit({ binary: image.binary, spawner, reactor: this.#reactor }, request);
  }
}
