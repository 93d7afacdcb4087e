import { ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { isInside } from "../workspace/confine.ts";
import type { ChildSpawners } from "../policy/child_spawners.ts";
import type { Reactor } from "../os/reactor.ts";
import { locateRepository, type RepositoryLocation, trustedLocation } from "./location.ts";
import { type GitRequest, type GitRun, runGit } from "./runner.ts";

/** The git tools' access to git: where git dirs are and whether git may read them (location.ts), and sandboxed runs. */
export class GitService {
  /** The repository the workspace root was in at start-up, when its git dirs lie outside the workspace. */
  readonly trusted: RepositoryLocation | null;

  constructor(readonly ws: Workspace, private readonly children: ChildSpawners, private readonly reactor: Reactor) {
    this.trusted = trustedLocation(ws.root);
  }

  /** `dir`'s repository, checked by location.ts; its in-workspace git dirs become read-only to safe-mode commands. */
  locate(dir: string): RepositoryLocation {
    const location = locateRepository(this.ws.root, dir, this.trusted);
    const inside = [location.gitDir, location.commonDir].filter((gitDir) => isInside(this.ws.root, gitDir));
    this.children.registerGitDirs(inside);
    return location;
  }

  async run(location: RepositoryLocation, request: GitRequest): Promise<GitRun> {
    const image = await this.children.gitImage();
    if (image === null) {
      throw new ToolError("GIT_FAILED", "git is not installed (no git on the server's PATH)", {
        hint: "Install git, or start workcell with a PATH that has it; check_exec_environment shows what is missing.",
      });
    }
    const spawner = this.children.gitSpawner(image, location.readable);
    return await runGit({ binary: image.binary, spawner, reactor: this.reactor }, request);
  }
}
