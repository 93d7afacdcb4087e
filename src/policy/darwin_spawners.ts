/**
 * The spawners of every child on darwin, each started as `/usr/bin/sandbox-exec -p PROFILE -- PROGRAM ARGS…` with
 * the profile seatbelt_policy.ts plans from the same requests as on Linux. sandbox-exec is probed once, at the first
 * need: when it or the profile is refused, check_exec_environment's `missing` says so and children run unsandboxed.
 */
import type { Mode } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { SpawnRequest } from "../os/spawn_request.ts";
import { resolveProgram, spawnChild } from "../os/spawn.ts";
import {
  canonicalPath,
  renderProfile,
  SANDBOX_EXEC,
  sandboxExecArgv,
  SeatbeltPathError,
  type SeatbeltProfile,
} from "../os/seatbelt.ts";
import type { Availability, ChildRequest } from "./child_sandbox_plan.ts";
import { type CommandPaths, type MachineGaps, SandboxedSpawners, SandboxSetupError } from "./sandboxed_spawners.ts";
import type { ChildOptions } from "./child_requests.ts";
import { credentialPaths, homeDirectories } from "./credentials.ts";
import { DARWIN_CREDENTIAL_STORES, describeSeatbelt, type SeatbeltInputs, seatbeltProfile } from "./seatbelt_policy.ts";

/** How a report's `missing` names Seatbelt when sandbox-exec cannot confine children here. */
export const SEATBELT_MISSING = "seatbelt";

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
export class SeatbeltSandboxes extends SandboxedSpawners<SeatbeltProfile> {
  readonly #inputs: SeatbeltInputs;
  #available: Promise<Availability> | null = null;

  constructor(ws: Workspace, options: ChildOptions) {
    super(ws, options);
    // No /etc/passwd lookup as on Linux: macOS keeps accounts in Directory Services, so $HOME alone.
    const stores = credentialPaths(homeDirectories(options.env, null), DARWIN_CREDENTIAL_STORES);
    this.#inputs = { canonical: (p) => canonicalPath(p, Deno.realPathSync), credentialStores: stores };
  }

  /**
   * Whether sandbox-exec confines children, probed once with the fullest profile (a safe-mode command's) over fixed
   * paths. A real path a profile cannot carry fails that child's spawn (SandboxSetupError), never unconfines others.
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

  protected commandPaths(_mode: Mode, gitDirs: string[]): CommandPaths {
    return {
      // Seatbelt excludes them from the writable tree by path: no mount, so no mount flags.
      gitDirs: gitDirs.map((p) => ({ path: p, flags: 0 })),
      // Seatbelt denies the stores themselves (SeatbeltInputs); Landlock's read rules are Linux's.
      readRules: [],
    };
  }

  protected ripgrepExecutables(): string[] {
    // darwin has no memfd: the compiled binary's rg is a file of its own (ripgrep_binary.ts), named here.
    return [this.options.ripgrep.path];
  }

  async ripgrepConfined(): Promise<boolean> {
    return (await this.#sandboxExec()).available;
  }

  protected async machineGaps(): Promise<MachineGaps> {
    const sandboxExec = await this.#sandboxExec();
    return { landlock_abi: null, missing: sandboxExec.available ? [] : [`${SEATBELT_MISSING}: ${sandboxExec.reason}`] };
  }

  protected async planFor(child: () => ChildRequest | Promise<ChildRequest>): Promise<SeatbeltProfile | null> {
    return (await this.#sandboxExec()).available ? seatbeltProfile(await child(), this.#inputs) : null;
  }

  protected readonly describePlan = describeSeatbelt;

  protected spawnUnder(profile: SeatbeltProfile, request: SpawnRequest): number {
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
