/**
 * The spawners of every child on darwin — commands, git, rg — each started
 * as `/usr/bin/sandbox-exec -p PROFILE -- PROGRAM ARGS…`, with the profile
 * seatbelt_policy.ts plans from the same requests the Linux launcher's plans
 * come from (children.ts builds them the same way). One instance per server
 * process; sandbox-exec is probed once, on the first need, by running
 * `/usr/bin/true` under a real safe-mode profile of this workspace, so a
 * missing sandbox-exec and a profile this macOS refuses are both reported
 * (check_exec_environment's `missing`), and children then run unsandboxed,
 * saying so, as on Linux without the launcher.
 *
 * @example
 * ```ts
 * import { rgPath } from "@vscode/ripgrep";
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { SpawnRequest } from "../os/spawn_request.ts";
 * import { probeLandlock } from "./landlock_probe.ts";
 *
 * declare const request: SpawnRequest; // argv, env, cwd and stdio of one command
 * const children = new SeatbeltSandboxes(openWorkspace(Deno.cwd()), {
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
import { gitDirsReadOnly } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Spawner, SpawnRequest } from "../os/spawn_request.ts";
import { resolveProgram, spawnChild } from "../os/spawn.ts";
import {
  canonicalPath,
  renderProfile,
  SANDBOX_EXEC,
  sandboxExecArgv,
  SeatbeltPathError,
  type SeatbeltProfile,
} from "../os/seatbelt.ts";
import type { Availability, ChildRequest, GitImage, SandboxDescription } from "./child_policy.ts";
import { type SandboxReport, SandboxSetupError } from "./children.ts";
import { type ChildOptions, ChildRequests, planKey } from "./child_requests.ts";
import type { ChildSpawners } from "./child_spawners.ts";
import { homeDirectories } from "./credentials.ts";
import { DARWIN_CREDENTIAL_STORES, describeSeatbelt, type SeatbeltInputs, seatbeltProfile } from "./seatbelt_policy.ts";

/** How a report's `missing` names Seatbelt when sandbox-exec cannot confine children here. */
export const SEATBELT_MISSING = "seatbelt";

/** The path Seatbelt matches, through the real file system. */
const canonical = (p: string) => canonicalPath(p, Deno.realPathSync);

/** Runs `/usr/bin/true` under `profile`: whether sandbox-exec takes it, or why not. */
async function probeSandboxExec(profile: string): Promise<Availability> {
  try {
    const out = await new Deno.Command(SANDBOX_EXEC, {
      args: ["-p", profile, "--", "/usr/bin/true"],
      cwd: "/",
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return { available: true };
    const said = new TextDecoder().decode(out.stderr).trim().split("\n")[0];
    return { available: false, reason: `${SANDBOX_EXEC} refused workcell's profile: ${said || `exit ${out.code}`}` };
  } catch (error) {
    return { available: false, reason: `${SANDBOX_EXEC} cannot run: ${(error as Error).message}` };
  }
}

/** Every child spawner of one server process on darwin. */
export class SeatbeltSandboxes implements ChildSpawners {
  readonly #ws: Workspace;
  readonly #options: ChildOptions;
  readonly #requests: ChildRequests;
  readonly #inputs: SeatbeltInputs;
  #available: Promise<Availability> | null = null;
  /** The profile (null: none) of the latest command started per mode and grants: what the audit trail reports. */
  readonly #commandProfiles = new Map<string, SeatbeltProfile | null>();

  constructor(ws: Workspace, options: ChildOptions) {
    this.#ws = ws;
    this.#options = options;
    this.#requests = new ChildRequests(ws, options);
    // No /etc/passwd lookup as on Linux: macOS keeps accounts in Directory Services, so $HOME alone.
    const homes = homeDirectories(options.env, null);
    const stores = homes.flatMap((home) => DARWIN_CREDENTIAL_STORES.map((store) => path.join(home, store)));
    this.#inputs = { canonical, credentialStores: stores };
  }

  /**
   * Whether sandbox-exec confines children here, probed once with the fullest profile there is (a safe-mode
   * command's: a git dir read-only beneath the workspace, the stores unreadable, a terminal) over fixed paths:
   * what is probed is sandbox-exec and the profile's grammar. A real path the profile cannot carry fails that
   * child's spawn (SandboxSetupError) and never makes the others run unconfined.
   */
  #sandboxExec(): Promise<Availability> {
    const probe: SeatbeltProfile = {
      reads: "all",
      unreadable: ["/private/var/empty/.ssh"],
      writes: [{ path: "/private/var/empty", readOnly: ["/private/var/empty/.git"] }],
      executes: "any",
      terminal: { slave: null },
      network: false,
    };
    return this.#available ??= probeSandboxExec(renderProfile(probe));
  }

  gitImage(): Promise<GitImage | null> {
    return this.#requests.gitImage();
  }

  registerGitDirs(paths: readonly string[]): void {
    this.#requests.registerGitDirs(paths);
  }

  async #commandChild(mode: Mode, grants: ReadonlySet<string>, ttySlave?: string): Promise<ChildRequest> {
    const readOnly = gitDirsReadOnly(mode, grants) ? await this.#requests.gitDirs() : [];
    return {
      kind: "command",
      mode,
      grants,
      root: this.#ws.root,
      tmpdir: this.#options.tmpdir,
      ttySlave,
      // Seatbelt excludes them from the writable tree by path: no mount, so no mount flags.
      gitDirs: readOnly.map((p) => ({ path: p, flags: 0 })),
      // Seatbelt denies the stores themselves (SeatbeltInputs); Landlock's read rules are Linux's.
      readRules: [],
    };
  }

  commandSpawner(mode: Mode, grants: ReadonlySet<string>): Spawner {
    const key = planKey(mode, grants);
    return (request) =>
      this.#spawn(
        request,
        () => this.#commandChild(mode, grants, request.ttySlave),
        (profile) => this.#commandProfiles.set(key, profile),
      );
  }

  appliedCommandSandbox(mode: Mode, grants: ReadonlySet<string>): SandboxDescription | null {
    const key = planKey(mode, grants);
    return this.#commandProfiles.has(key) ? describeSeatbelt(this.#commandProfiles.get(key)!) : null;
  }

  gitSpawner(git: GitImage, readable: string[]): Spawner {
    return (request) => this.#spawn(request, () => this.#requests.gitChild(git, readable));
  }

  #ripgrepChild(): ChildRequest {
    // darwin has no memfd: the compiled binary's rg is a file of its own (ripgrep_binary.ts), named here.
    return this.#requests.ripgrepChild([this.#options.ripgrep.path]);
  }

  ripgrepSpawner(): Spawner {
    const child = this.#ripgrepChild();
    return (request) => this.#spawn(request, () => child);
  }

  async ripgrepConfined(): Promise<boolean> {
    return (await this.#sandboxExec()).available;
  }

  async report(mode: Mode, grants: ReadonlySet<string>, trustedReadable: string[]): Promise<SandboxReport> {
    const [sandboxExec, git] = await Promise.all([this.#sandboxExec(), this.gitImage()]);
    const describe = (child: ChildRequest) =>
      describeSeatbelt(sandboxExec.available ? seatbeltProfile(child, this.#inputs) : null);
    const noGit = { binary: "git", execPath: "", loaders: [] };
    return {
      landlock_abi: null,
      missing: [
        ...(sandboxExec.available ? [] : [`${SEATBELT_MISSING}: ${sandboxExec.reason}`]),
        ...(git === null ? ["git: not installed (git tools answer GIT_FAILED)"] : []),
      ],
      commands: describe(await this.#commandChild(mode, grants)),
      git: describe(this.#requests.gitChild(git ?? noGit, trustedReadable)),
      ripgrep: describe(this.#ripgrepChild()),
    };
  }

  async #spawn(
    request: SpawnRequest,
    child: () => ChildRequest | Promise<ChildRequest>,
    planned?: (profile: SeatbeltProfile | null) => void,
  ): Promise<number> {
    const sandboxExec = await this.#sandboxExec();
    const profile = sandboxExec.available ? seatbeltProfile(await child(), this.#inputs) : null;
    planned?.(profile);
    if (profile === null) return spawnChild(request);
    let text: string;
    try {
      text = renderProfile(profile);
    } catch (error) {
      if (!(error instanceof SeatbeltPathError)) throw error;
      throw new SandboxSetupError("seatbelt", error.message);
    }
    const program = resolveProgram(request.argv[0], request.env.PATH);
    return spawnChild({ ...request, argv: sandboxExecArgv(text, program, request.argv), executable: SANDBOX_EXEC });
  }
}
