/**
 * The spawners of every child on Linux: each asks child_sandbox_plan.ts for its plan as it spawns and starts through
 * the launcher (src/os/launcher.ts). Nothing is probed or started before a child is first needed.
 */
import type { Mode } from "./modes.ts";
import type { SpawnRequest } from "../os/spawn_request.ts";
import { resolveProgram, SpawnError } from "../os/spawn.ts";
import { Launcher, LAUNCHER_FDS, LaunchStepError } from "../os/launcher.ts";
import { type SandboxPlan, sandboxScript } from "../os/sandbox_script.ts";
import { mountFlagsOf } from "../os/mount_flags.ts";
import { cString, libc, O } from "../os/libc.ts";
import { AF } from "../os/seccomp.ts";
import { reapKilled } from "../os/fd.ts";
import { readKernelFile } from "../os/fs_at.ts";
import { statPath } from "../os/fs_stat.ts";
import type { LandlockRule } from "../os/landlock.ts";
import { ancestors, credentialPaths, homeDirectories, readRulesExcept, REAL_WALK_IO } from "./credentials.ts";
import {
  type Availability,
  type ChildFacts,
  type ChildRequest,
  childSandbox,
  describeSandbox,
  noNetworkFilter,
} from "./child_sandbox_plan.ts";
import { type CommandPaths, type MachineGaps, SandboxedSpawners, SandboxSetupError } from "./sandboxed_spawners.ts";

/** The facts plus whether the launcher itself could be made (without it nothing is sandboxed). */
export type SandboxFacts = ChildFacts & { launcher: Availability };

function lastCapability(): number {
  try {
    return Number(readKernelFile("/proc/sys/kernel/cap_last_cap").trim());
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
export class ChildSandboxes extends SandboxedSpawners<SandboxPlan> {
  #launcher: Promise<{ launcher: Launcher | null; reason: string | null }> | null = null;
  #facts: Promise<SandboxFacts> | null = null;
  #readRules: { key: string; rules: LandlockRule[] } | null = null;
  #passwd: { mtime: number | null; home: string | null } | null = null;

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
      abi: this.options.landlock.abi,
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
    const root = this.ws.root;
    const [namespaces, seccomp] = await Promise.all([
      probe({ mounts: { user, readOnly: [{ path: root, flags: mountFlagsOf(root) }] }, seccomp: null }),
      probe({ mounts: null, seccomp: noNetworkFilter([AF.UNIX]) }),
    ]);
    return { ...base, launcher: { available: true }, namespaces, seccomp };
  }

  /** The account's home in /etc/passwd, read again only when the file changes. */
  #passwdHome(): string | null {
    const mtime = statPath("/etc/passwd")?.mtime.getTime() ?? null;
    if (this.#passwd?.mtime !== mtime) this.#passwd = { mtime, home: passwdHome(libc().getuid()) };
    return this.#passwd.home;
  }

  /** The read rules without the credential stores, rebuilt only when a directory the walk lists has changed. */
  #credentialRules(): LandlockRule[] {
    const denied = credentialPaths(homeDirectories(this.options.env, this.#passwdHome()));
    const walked = new Set(denied.flatMap(ancestors));
    const key = [...walked].sort().map((dir) => `${dir}@${statPath(dir)?.mtime.getTime() ?? "-"}`).join("|");
    if (this.#readRules?.key !== key) this.#readRules = { key, rules: readRulesExcept(denied, REAL_WALK_IO) };
    return this.#readRules.rules;
  }

  protected commandPaths(mode: Mode, gitDirs: string[]): CommandPaths {
    return {
      gitDirs: gitDirs.map((p) => ({ path: p, flags: mountFlagsOf(p) })),
      readRules: mode === "safe" ? this.#credentialRules() : [],
    };
  }

  protected ripgrepExecutables(): string[] {
    // A memfd (the compiled binary's rg) lives on the kernel's internal shmem mount, which takes no Landlock
    // rule (add_rule says EBADFD) and which Landlock never restricts.
    return this.options.ripgrep.fd === null ? [this.options.ripgrep.path] : [];
  }

  async ripgrepConfined(): Promise<boolean> {
    const facts = await this.facts();
    return facts.launcher.available && facts.abi !== null;
  }

  protected async machineGaps(): Promise<MachineGaps> {
    const facts = await this.facts();
    return {
      landlock_abi: facts.abi,
      missing: [
        ...(facts.launcher.available ? [] : [`launcher: ${facts.launcher.reason}`]),
        ...(facts.abi === null ? [`landlock: ${this.options.landlock.reason}`] : []),
        ...(facts.seccomp.available ? [] : [`seccomp: ${facts.seccomp.reason}`]),
        ...(facts.namespaces.available ? [] : [`mount namespace: ${facts.namespaces.reason}`]),
      ],
    };
  }

  protected async planFor(child: () => ChildRequest | Promise<ChildRequest>): Promise<SandboxPlan | null> {
    const facts = await this.facts();
    return facts.launcher.available ? childSandbox(await child(), facts) : null;
  }

  protected readonly describePlan = describeSandbox;

  protected async spawnUnder(plan: SandboxPlan, request: SpawnRequest): Promise<number> {
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
