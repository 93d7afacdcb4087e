/** What both systems' child spawners share: each child gets its plan as it spawns, or runs unsandboxed, saying so. */
import { gitDirsReadOnly, type Mode } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Spawner, SpawnRequest } from "../os/spawn_request.ts";
import { spawnChild } from "../os/spawn.ts";
import { findGitDirs, gitDirsAt } from "../workspace/git_dirs.ts";
import { lstatPath } from "../os/fs_stat.ts";
import type { ChildRequest, CommandChild, GitImage, SandboxDescription } from "./child_sandbox_plan.ts";
import { type ChildOptions, gitChild, gitImage, ripgrepChild } from "./child_requests.ts";

/** The sandboxes a session's children get, per kind, with the layers this machine cannot give. */
export interface SandboxReport extends MachineGaps {
  commands: SandboxDescription;
  git: SandboxDescription;
  ripgrep: SandboxDescription;
}

/** The Landlock ABI (null: none, or not Linux) and the layers missing on this machine, each with why. */
export interface MachineGaps {
  landlock_abi: number | null;
  missing: string[];
}

/** What a command child's request has that depends on the system's sandbox. */
export type CommandPaths = Pick<CommandChild, "gitDirs" | "readRules">;

/** A sandbox step failed: the sandbox could not be set up, so the child was not started. */
export class SandboxSetupError extends Error {
  constructor(readonly step: string, message: string) {
    super(`the sandbox could not be set up: ${message}`);
    this.name = "SandboxSetupError";
  }
}

/** A git that is not there, for the report of what git would run under. */
const NO_GIT: GitImage = { binary: "git", execPath: "", loaders: [] };

/** The key of a session's mode and grants: what the latest command's sandbox is remembered by. */
function planKey(mode: Mode, grants: ReadonlySet<string>): string {
  return `${mode}:${[...grants].sort().join(",")}`;
}

/** Every child spawner of one server process; `Plan` is what the system's sandbox is made from. */
export abstract class SandboxedSpawners<Plan> {
  #git: Promise<GitImage | null> | null = null;
  #nestedGitDirs: string[] | null = null;
  readonly #registeredGitDirs = new Set<string>();
  /** The plan (null: none) of the latest command started per mode and grants: what the audit trail reports. */
  readonly #commandPlans = new Map<string, Plan | null>();

  constructor(protected readonly ws: Workspace, protected readonly options: ChildOptions) {}

  /** The plan the child runs under here, or null when there is no sandbox here (`child` is then not even built). */
  protected abstract planFor(child: () => ChildRequest | Promise<ChildRequest>): Promise<Plan | null>;
  protected abstract spawnUnder(plan: Plan, request: SpawnRequest): number | Promise<number>;
  /** `plan` as check_exec_environment and the audit trail describe it. */
  protected abstract readonly describePlan: (plan: Plan | null) => SandboxDescription;
  /** A command child's read-only git dirs (`gitDirs`, their paths) and read rules here. */
  protected abstract commandPaths(mode: Mode, gitDirs: string[]): CommandPaths;
  /** What rg may execute: itself, where the sandbox can name it. */
  protected abstract ripgrepExecutables(): string[];
  protected abstract machineGaps(): Promise<MachineGaps>;
  /** Whether rg's reads are held beneath the workspace by the kernel (else its answers are checked afterwards). */
  abstract ripgrepConfined(): Promise<boolean>;

  async #commandChild(mode: Mode, grants: ReadonlySet<string>, ttySlave?: string): Promise<CommandChild> {
    const gitDirs = gitDirsReadOnly(mode, grants) ? await this.#gitDirs() : [];
    return {
      kind: "command",
      mode,
      grants,
      root: this.ws.root,
      tmpdir: this.options.tmpdir,
      ttySlave,
      ...this.commandPaths(mode, gitDirs),
    };
  }

  /** The workspace's git dirs now: the root's (looked at each time), nested ones (found once), registered ones. */
  async #gitDirs(): Promise<string[]> {
    this.#nestedGitDirs ??= (await findGitDirs(this.ws)).paths;
    using top = this.ws.open(".", { expect: "dir" });
    const all = new Set([...await gitDirsAt(this.ws.root, top), ...this.#nestedGitDirs, ...this.#registeredGitDirs]);
    // Gone ones are left out (a failing lstatPath builds no error object: this runs at every spawn).
    return [...all].filter((p) => lstatPath(p) !== null);
  }

  #ripgrepChild(): ChildRequest {
    return ripgrepChild(this.ws.root, this.ripgrepExecutables());
  }

  /** The git the git tools run, found once on the server's PATH; null when there is none. */
  gitImage(): Promise<GitImage | null> {
    return this.#git ??= gitImage(this.options.env.PATH);
  }

  /** Remembers git dirs a git tool resolved inside the workspace, so safe-mode commands see them read-only too. */
  registerGitDirs(paths: readonly string[]): void {
    for (const p of paths) this.#registeredGitDirs.add(p);
  }

  commandSpawner(mode: Mode, grants: ReadonlySet<string>): Spawner {
    const key = planKey(mode, grants);
    return (request) =>
      this.#spawn(
        request,
        () => this.#commandChild(mode, grants, request.ttySlave),
        (plan) => this.#commandPlans.set(key, plan),
      );
  }

  /**
   * What the latest command started in `mode` with `grants` runs under, or null before the first. Read right after a
   * start, it is that command's own: any started in between with these grants got the same.
   */
  appliedCommandSandbox(mode: Mode, grants: ReadonlySet<string>): SandboxDescription | null {
    const key = planKey(mode, grants);
    return this.#commandPlans.has(key) ? this.describePlan(this.#commandPlans.get(key)!) : null;
  }

  /** The spawner of git for a repository whose git dirs outside the workspace (`readable`) were trusted. */
  gitSpawner(git: GitImage, readable: string[]): Spawner {
    return (request) => this.#spawn(request, () => gitChild(this.ws.root, this.options.env, git, readable));
  }

  ripgrepSpawner(): Spawner {
    const child = this.#ripgrepChild();
    return (request) => this.#spawn(request, () => child);
  }

  /** What each kind of child of a session in `mode` with `grants` gets on this machine (check_exec_environment). */
  async report(mode: Mode, grants: ReadonlySet<string>, trustedReadable: string[]): Promise<SandboxReport> {
    const [gaps, git] = await Promise.all([this.machineGaps(), this.gitImage()]);
    const describe = async (child: ChildRequest) => this.describePlan(await this.planFor(() => child));
    return {
      landlock_abi: gaps.landlock_abi,
      missing: [...gaps.missing, ...(git === null ? ["git: not installed (git tools answer GIT_FAILED)"] : [])],
      commands: await describe(await this.#commandChild(mode, grants)),
      git: await describe(gitChild(this.ws.root, this.options.env, git ?? NO_GIT, trustedReadable)),
      ripgrep: await describe(this.#ripgrepChild()),
    };
  }

  async #spawn(
    request: SpawnRequest,
    child: () => ChildRequest | Promise<ChildRequest>,
    planned?: (plan: Plan | null) => void,
  ): Promise<number> {
    const plan = await this.planFor(child);
    planned?.(plan);
    return plan === null ? spawnChild(request) : this.spawnUnder(plan, request);
  }
}
