/**
 * The CommandPolicy of one server process: the gate of its mode (minus what
 * a session's grants lift), argv without a shell in safe mode or
 * `/bin/sh -c cmd` otherwise, the filtered environment, and the spawner
 * of the mode's Landlock sandbox (none in dangerous mode).
 *
 * @example
 * const policy = await createCommandPolicy({ mode: "safe" }, workspace, { landlock: probeLandlock(), inheritedEnv: Deno.env.toObject() });
 * const plan = await policy.plan({ cmd: "git status", cwd: workspace.root, cwdFd: workspace.fd, env: {}, tty: false, grants: new Set() });
 * await policy.close();
 */
import type { Config, Mode } from "../config.ts";
import type { Workspace } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";
import { directSpawner } from "../exec/spawn.ts";
import type { Spawner } from "../exec/spawn_request.ts";
import type { CommandPolicy, CommandRequest, LaunchPlan } from "./policy.ts";
import { checkCommand } from "./gate.ts";
import { type ChildEnvironment, childEnvironment } from "./env_filter.ts";
import { gatesInForce, MODE_POLICIES, networkAllowed } from "./modes.ts";
import type { LandlockProbe } from "./landlock_probe.ts";
import { LANDLOCK_FEATURE_ABI, landlockRuleset, SANDBOX_DEVICES } from "./landlock.ts";
import { Sandbox } from "./sandbox.ts";
import { findPerl } from "./command_domain.ts";
import { choosePrivateTmp } from "./private_tmp.ts";

/** The shell that runs `cmd` in trusted and dangerous mode (and with a shell grant). */
export const SHELL = "/bin/sh";

/** What the policy needs from start-up. */
export interface PolicyFacts {
  landlock: LandlockProbe;
  /** The server's own environment, filtered into the children's. */
  inheritedEnv: Record<string, string>;
}

/** The sandbox as check_exec_environment reports it, for one session. */
export interface SandboxStatus {
  supported: boolean;
  abi: number | null;
  enforced: boolean;
  reason: string | null;
  writable_roots: string[];
  writable_devices: string[];
  network_restricted: boolean;
  signals_scoped: boolean;
  /** Each command in a nested domain of its own: it cannot signal the sandbox thread or other commands. */
  commands_isolated: boolean;
}

/** The policy plus what the adapters report about it. */
export interface WorkcellPolicy extends CommandPolicy {
  readonly mode: Mode;
  /** The private TMPDIR of children, or null when none could be made (children then get no TMPDIR). */
  readonly tmpdir: string | null;
  /** Why each temp-dir parent was refused (all of them when tmpdir is null). */
  readonly tmpdirProblems: readonly string[];
  /** Base environment of children: stripped names and added variables. */
  readonly environment: ChildEnvironment;
  /** The sandbox a session with these grants gets. */
  sandboxStatus(grants: ReadonlySet<string>): Promise<SandboxStatus>;
  /** Stops the sandbox workers and removes the temp dir. */
  close(): Promise<void>;
}

type SandboxState = { sandbox: Sandbox; reason: null } | { sandbox: null; reason: string };

/**
 * Creates the policy for `config.mode`, starting the default sandbox worker
 * (about 60 ms) so its status is known before the first command.
 */
export async function createCommandPolicy(
  config: Pick<Config, "mode">,
  workspace: Workspace,
  facts: PolicyFacts,
): Promise<WorkcellPolicy> {
  const mode = config.mode;
  const modePolicy = MODE_POLICIES[mode];
  const { tmp, problems: tmpdirProblems } = choosePrivateTmp();
  if (tmp === null) {
    console.error(`workcell: WARNING: commands run without a private TMPDIR: ${tmpdirProblems.join("; ")}`);
  }
  const tmpdir = tmp?.path ?? null;
  const environment = childEnvironment(facts.inheritedEnv, { tmpdir, inheritAll: mode === "dangerous" });
  const writable = tmpdir === null ? [workspace.root] : [workspace.root, tmpdir];
  const abi = facts.landlock.abi;
  const perl = abi !== null && abi >= LANDLOCK_FEATURE_ABI.scope ? findPerl() : null;
  const sandboxes = new Map<boolean, Promise<SandboxState>>();

  /** The sandbox for children with (denyTcp) or without TCP; started once per variant. */
  const sandboxFor = (denyTcp: boolean): Promise<SandboxState> => {
    let state = sandboxes.get(denyTcp);
    if (!state) {
      state = abi === null
        ? Promise.resolve({ sandbox: null, reason: `Landlock is unavailable: ${facts.landlock.reason}` })
        : Sandbox.start(landlockRuleset(abi, { writable, denyTcp }), perl).then(
          (sandbox) => ({ sandbox, reason: null }),
          (error: Error) => ({ sandbox: null, reason: `the Landlock sandbox could not start: ${error.message}` }),
        );
      sandboxes.set(denyTcp, state);
    }
    return state;
  };
  if (modePolicy.landlock) {
    const state = await sandboxFor(!modePolicy.network);
    if (state.reason) console.error(`workcell: WARNING: commands run without a sandbox: ${state.reason}`);
  }

  const spawnerFor = async (grants: ReadonlySet<string>): Promise<Spawner> => {
    if (!modePolicy.landlock) return directSpawner;
    const state = await sandboxFor(!networkAllowed(mode, grants));
    return state.sandbox?.spawner ?? directSpawner;
  };

  return {
    mode,
    tmpdir,
    tmpdirProblems,
    environment,
    async plan(request: CommandRequest): Promise<LaunchPlan> {
      const verdict = checkCommand(request.cmd, request.env, {
        mode,
        gates: gatesInForce(mode, request.grants),
        workspace: workspace.root,
        cwd: request.cwd,
        // Without a private temp dir nothing but the workspace is allowed.
        tmpdir: tmpdir ?? workspace.root,
      });
      if (!verdict.ok) {
        const { rule, gate, token, message, hint } = verdict.refusal;
        throw new ToolError("COMMAND_BLOCKED", `${message} (rule ${rule}, ${mode} mode)`, {
          hint,
          details: { rule, gate, token, mode },
        });
      }
      return {
        argv: verdict.argv ?? [SHELL, "-c", request.cmd],
        env: { ...environment.env, ...verdict.inlineEnv, ...request.env },
        cwd: request.cwd,
        cwdFd: request.cwdFd,
        spawner: await spawnerFor(request.grants),
      };
    },
    async sandboxStatus(grants) {
      const denyTcp = !networkAllowed(mode, grants);
      const base = {
        supported: abi !== null,
        abi,
        writable_roots: modePolicy.landlock ? writable : [],
        writable_devices: modePolicy.landlock ? [...SANDBOX_DEVICES] : [],
      };
      if (!modePolicy.landlock) {
        return {
          ...base,
          enforced: false,
          reason: "dangerous mode runs children without a sandbox",
          network_restricted: false,
          signals_scoped: false,
          commands_isolated: false,
        };
      }
      const state = await sandboxFor(denyTcp);
      const enforced = state.sandbox !== null;
      return {
        ...base,
        enforced,
        reason: state.reason,
        network_restricted: enforced && denyTcp && abi! >= LANDLOCK_FEATURE_ABI.network,
        signals_scoped: enforced && abi! >= LANDLOCK_FEATURE_ABI.scope,
        commands_isolated: state.sandbox?.commandsIsolated ?? false,
      };
    },
    async close() {
      for (const state of sandboxes.values()) (await state).sandbox?.close();
      sandboxes.clear();
      await tmp?.remove();
    },
  };
}
