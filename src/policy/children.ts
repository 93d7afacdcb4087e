/**
 * The spawners of every child the server starts — commands, git, rg — each
 * asking child_policy.ts for its sandbox plan at the moment it spawns and
 * starting it through the launcher (src/os/launcher.ts). One instance per
 * server process, created at start-up; nothing is probed or started until a
 * child is first needed.
 *
 * The requests come from child_requests.ts (the workspace's git dirs among
 * them); per command it adds the read rules that leave the credential stores
 * out (credentials.ts; rebuilt when a directory they walk changes).
 *
 * @example
 * ```ts
 * import { rgPath } from "@vscode/ripgrep";
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { SpawnRequest } from "../os/spawn_request.ts";
 * import { probeLandlock } from "./landlock_probe.ts";
 *
 * declare const request: SpawnRequest; // argv, env, cwd and stdio of one command
 * const workspace = openWorkspace(Deno.cwd());
 * const children = new ChildSandboxes(workspace, {
 *   tmpdir: null,
 *   env: Deno.env.toObject(),
 *   landlock: probeLandlock(),
 *   ripgrep: { path: rgPath, fd: null },
 * });
 * const pid = await children.commandSpawner("safe", new Set())(request);
 * ```
 */
import * as path from "node:path";
import type { Mode } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Spawner, SpawnRequest } from "../os/spawn_request.ts";
import { resolveProgram, spawnChild, SpawnError } from "../os/spawn.ts";
import { Launcher, LAUNCHER_FDS, LaunchStepError } from "../os/launcher.ts";
import { type SandboxPlan, sandboxScript } from "../os/sandbox_script.ts";
import { mountFlagsOf } from "../os/mount_flags.ts";
import { cString, ERRNO, libc, O } from "../os/libc.ts";
import { AF, socketFamilyFilter } from "../os/seccomp.ts";
import { syscallTable } from "../os/syscalls.ts";
import { reapKilled } from "../os/fd.ts";
import { statPath } from "../os/fs_at.ts";
import type { LandlockRule } from "../os/landlock.ts";
import { credentialPaths, homeDirectories, readRulesExcept, REAL_WALK_IO } from "./credentials.ts";
import {
  type Availability,
  type ChildFacts,
  type ChildRequest,
  childSandbox,
  describeSandbox,
  type GitImage,
  type SandboxDescription,
} from "./child_policy.ts";
import type { ChildSpawners } from "./child_spawners.ts";
import { type ChildOptions, ChildRequests, planKey } from "./child_requests.ts";
import { gitDirsReadOnly } from "./modes.ts";

/** The sandboxes a session's children get, per kind, with the layers this machine cannot give. */
export interface SandboxReport {
  landlock_abi: number | null;
  /** Layers missing on this machine, each with why (an empty list: everything is available). */
  missing: string[];
  commands: SandboxDescription;
  git: SandboxDescription;
  ripgrep: SandboxDescription;
}

/** The facts plus whether the launcher itself could be made (without it nothing is sandboxed). */
export interface SandboxFacts extends ChildFacts {
  launcher: Availability;
}

/** A launcher step failed: the sandbox could not be set up, so the child was not started. */
export class SandboxSetupError extends Error {
  constructor(readonly step: string, message: string) {
    super(`the sandbox could not be set up: ${message}`);
    this.name = "SandboxSetupError";
  }
}

function lastCapability(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/sys/kernel/cap_last_cap").trim());
  } catch {
    return 63;
  }
}

/** The account's home directory from /etc/passwd, or null. */
function passwdHome(uid: number): string | null {
  try {
    for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
      const fields = line.split(":");
      if (fields.length >= 7 && Number(fields[2]) === uid) return fields[5];
    }
  } catch {
    // no passwd file: $HOME alone
  }
  return null;
}

/** Every child spawner of one server process on Linux. */
export class ChildSandboxes implements ChildSpawners {
  readonly #ws: Workspace;
  readonly #options: ChildOptions;
  readonly #requests: ChildRequests;
  #launcher: Promise<{ launcher: Launcher | null; reason: string | null }> | null = null;
  #facts: Promise<SandboxFacts> | null = null;
  #readRules: { key: string; rules: LandlockRule[] } | null = null;
  /** The plan (null: none) of the latest command started per mode and grants: what the audit trail reports. */
  readonly #commandPlans = new Map<string, SandboxPlan | null>();
  #passwd: { mtime: number | null; home: string | null } | null = null;

  constructor(ws: Workspace, options: ChildOptions) {
    this.#ws = ws;
    this.#options = options;
    this.#requests = new ChildRequests(ws, options);
  }

  #launcherState(): Promise<{ launcher: Launcher | null; reason: string | null }> {
    return this.#launcher ??= Launcher.create().then(
      (launcher) => ({ launcher, reason: null }),
      (error: Error) => ({ launcher: null, reason: `the launcher cannot run: ${error.message}` }),
    );
  }

  /** What this machine offers, probed once: Landlock's ABI, namespaces and seccomp through the launcher. */
  facts(): Promise<SandboxFacts> {
    return this.#facts ??= this.#probe();
  }

  async #probe(): Promise<SandboxFacts> {
    const c = libc();
    const base = {
      abi: this.#options.landlock.abi,
      uid: c.getuid(),
      gid: c.getgid(),
      lastCapability: lastCapability(),
    };
    const { launcher, reason } = await this.#launcherState();
    if (launcher === null) {
      const missing = { available: false as const, reason: reason! };
      return { ...base, launcher: missing, namespaces: missing, seccomp: missing };
    }
    const probe = async (plan: Pick<SandboxPlan, "mounts" | "seccomp">): Promise<Availability> => {
      const devNull = libc().open(cString("/dev/null"), O.RDWR | O.CLOEXEC, 0);
      try {
        // No execve: the launcher exits 0 once every step succeeded.
        const script = sandboxScript({ ...plan, landlock: null, dropCapabilities: false, lastCapability: 0 }, null);
        const stdio = { stdin: devNull, stdout: devNull, stderr: devNull };
        await reapKilled(await launcher.spawn(script, { env: {}, cwd: "/", stdio }));
        return { available: true };
      } catch (error) {
        return { available: false, reason: (error as Error).message };
      } finally {
        libc().close(devNull);
      }
    };
    const user = base.uid === 0 ? null : { uid: base.uid, gid: base.gid };
    const root = this.#ws.root;
    const [namespaces, seccomp] = await Promise.all([
      probe({ mounts: { user, readOnly: [{ path: root, flags: mountFlagsOf(root) }] }, seccomp: null }),
      probe({ mounts: null, seccomp: socketFamilyFilter(syscallTable(), [AF.UNIX], ERRNO.EACCES) }),
    ]);
    return { ...base, launcher: { available: true }, namespaces, seccomp };
  }

  gitImage(): Promise<GitImage | null> {
    return this.#requests.gitImage();
  }

  registerGitDirs(paths: readonly string[]): void {
    this.#requests.registerGitDirs(paths);
  }

  /** The account's home in /etc/passwd, read again only when the file changes. */
  #passwdHome(): string | null {
    const mtime = statPath("/etc/passwd")?.mtime.getTime() ?? null;
    if (this.#passwd?.mtime !== mtime) this.#passwd = { mtime, home: passwdHome(libc().getuid()) };
    return this.#passwd.home;
  }

  /** The read rules without the credential stores, rebuilt only when a directory the walk lists has changed. */
  #credentialRules(): LandlockRule[] {
    const homes = homeDirectories(this.#options.env, this.#passwdHome());
    const denied = credentialPaths(...homes);
    const walked = new Set<string>();
    for (const store of denied) {
      for (let dir = path.dirname(store);; dir = path.dirname(dir)) {
        walked.add(dir);
        if (dir === path.dirname(dir)) break;
      }
    }
    const key = [...walked].sort().map((dir) => `${dir}@${statPath(dir)?.mtime.getTime() ?? "-"}`).join("|");
    if (this.#readRules?.key !== key) this.#readRules = { key, rules: readRulesExcept(denied, REAL_WALK_IO) };
    return this.#readRules.rules;
  }

  /** The request a command child makes (for its plan and for reports). */
  async #commandChild(mode: Mode, grants: ReadonlySet<string>, ttySlave?: string): Promise<ChildRequest> {
    const readOnly = gitDirsReadOnly(mode, grants);
    return {
      kind: "command",
      mode,
      grants,
      root: this.#ws.root,
      tmpdir: this.#options.tmpdir,
      ttySlave,
      gitDirs: readOnly ? (await this.#requests.gitDirs()).map((p) => ({ path: p, flags: mountFlagsOf(p) })) : [],
      readRules: mode === "safe" ? this.#credentialRules() : [],
    };
  }

  /** The spawner of exec_command's children in `mode` with a session's `grants`. */
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
   * What the latest command started in `mode` with `grants` runs under, described as {@linkcode report} does, or
   * null before the first. Read right after a start, it is that command's own plan (another command started with
   * the same grants in between would have been given the same plan).
   */
  appliedCommandSandbox(mode: Mode, grants: ReadonlySet<string>): SandboxDescription | null {
    const key = planKey(mode, grants);
    return this.#commandPlans.has(key) ? describeSandbox(this.#commandPlans.get(key)!) : null;
  }

  /** The spawner of git for a repository whose git dirs outside the workspace (`readable`) were trusted. */
  gitSpawner(git: GitImage, readable: string[]): Spawner {
    return (request) => this.#spawn(request, () => this.#requests.gitChild(git, readable));
  }

  #ripgrepChild(): ChildRequest {
    const { ripgrep } = this.#options;
    // A memfd (the compiled binary's rg) lives on the kernel's internal shmem mount, which takes no Landlock
    // rule (add_rule says EBADFD) and which Landlock never restricts.
    return this.#requests.ripgrepChild(ripgrep.fd === null ? [ripgrep.path] : []);
  }

  /** The spawner of rg. */
  ripgrepSpawner(): Spawner {
    const child = this.#ripgrepChild();
    return (request) => this.#spawn(request, () => child);
  }

  /** Whether rg runs under Landlock (its reads then stay beneath the workspace). */
  async ripgrepConfined(): Promise<boolean> {
    const facts = await this.facts();
    return facts.launcher.available && facts.abi !== null;
  }

  /** What each kind of child of a session in `mode` with `grants` gets on this machine (check_exec_environment). */
  async report(mode: Mode, grants: ReadonlySet<string>, trustedReadable: string[]): Promise<SandboxReport> {
    const [facts, git] = await Promise.all([this.facts(), this.gitImage()]);
    const describe = (child: ChildRequest) =>
      describeSandbox(facts.launcher.available ? childSandbox(child, facts) : null);
    const missing = [
      ...(facts.launcher.available ? [] : [`launcher: ${facts.launcher.reason}`]),
      ...(facts.abi === null ? [`landlock: ${this.#options.landlock.reason}`] : []),
      ...(facts.seccomp.available ? [] : [`seccomp: ${facts.seccomp.reason}`]),
      ...(facts.namespaces.available ? [] : [`mount namespace: ${facts.namespaces.reason}`]),
      ...(git === null ? ["git: not installed (git tools answer GIT_FAILED)"] : []),
    ];
    const noGit = { binary: "git", execPath: "", loaders: [] };
    return {
      landlock_abi: facts.abi,
      missing,
      commands: describe(await this.#commandChild(mode, grants)),
      git: describe(this.#requests.gitChild(git ?? noGit, trustedReadable)),
      ripgrep: describe(this.#ripgrepChild()),
    };
  }

  async #spawn(
    request: SpawnRequest,
    child: () => ChildRequest | Promise<ChildRequest>,
    planned?: (plan: SandboxPlan | null) => void,
  ): Promise<number> {
    const facts = await this.facts();
    const plan = facts.launcher.available ? childSandbox(await child(), facts) : null;
    planned?.(plan);
    if (plan === null) return spawnChild(request);
    const { launcher } = await this.#launcherState();
    const program = request.programFd !== undefined
      ? `/proc/self/fd/${LAUNCHER_FDS.program}`
      : resolveProgram(request.argv[0], request.env.PATH);
    const script = sandboxScript(plan, { path: program, argv: request.argv, env: request.env });
    try {
      return await launcher!.spawn(script, {
        env: {},
        cwd: request.cwd,
        stdio: request.stdio,
        ttySlave: request.ttySlave,
        programFd: request.programFd,
      });
    } catch (error) {
      if (!(error instanceof LaunchStepError)) throw error;
      if (error.exec) throw new SpawnError(error.code, `cannot run ${request.argv[0]}: ${error.message}`);
      throw new SandboxSetupError(error.step, error.message);
    }
  }
}
