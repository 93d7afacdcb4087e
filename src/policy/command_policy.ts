/** The CommandPolicy of one server process: its mode's gate, argv or `/bin/sh -c`, the filtered env, its sandbox. */
import type { Workspace } from "../workspace/workspace.ts";
import { toRelative } from "../workspace/confine.ts";
import { gitDirContaining } from "../workspace/git_dirs.ts";
import { ToolError } from "../errors.ts";
import type { CommandRequest, LaunchPlan } from "./policy.ts";
import { checkCommand } from "./gate.ts";
import { diskPaths } from "./gate_paths.ts";
import { inheritedEnvironment } from "./child_environment.ts";
import { gatesInForce, gitDirsReadOnly, type Mode } from "./modes.ts";
import type { ChildSpawners } from "./child_spawners.ts";

/** The shell that runs `cmd` in trusted and dangerous mode (and with a shell grant). */
export const SHELL = "/bin/sh";

/** What the policy needs from start-up. */
export interface PolicyFacts {
  children: ChildSpawners;
  /** The private temp dir children get as TMPDIR, or null when none could be made (they then get no TMPDIR). */
  tmpdir: string | null;
  /** Why each temp-dir parent was refused (all of them when tmpdir is null). */
  tmpdirProblems: readonly string[];
  /** What the git tools' git may read outside the workspace (the trusted repository's git dirs). */
  gitReadable: string[];
  inheritedEnv: Record<string, string>;
}

/** The policy plus what the adapters report about it. */
export type WorkcellPolicy = Readonly<ReturnType<typeof createCommandPolicy>>;

/** Refuses a safe-mode workdir inside a git dir: it would keep the writable mount beneath the read-only bind. */
function refuseGitDirWorkdir(workspace: Workspace, cwd: string): void {
  const gitDir = gitDirContaining(workspace.root, cwd);
  if (gitDir === null) return;
  const rel = toRelative(workspace, gitDir);
  throw new ToolError("PATH_PROTECTED", `workdir ${toRelative(workspace, cwd)} is inside the git dir ${rel}`, {
    hint: "Safe-mode commands see git dirs read-only; run from the work tree, and use the git tools to read history.",
    details: { field: "workdir", git_dir: rel },
  });
}

/**
 * Creates the policy for `config.mode`.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import type { ChildSpawners } from "./child_spawners.ts";
 * declare const children: ChildSpawners;
 * const facts = { children, tmpdir: null, tmpdirProblems: [], gitReadable: [], inheritedEnv: {} };
 * const policy = createCommandPolicy({ mode: "safe" }, openWorkspace("/repo"), facts);
 * ```
 */
export function createCommandPolicy(
  config: { mode: Mode },
  workspace: Workspace,
  facts: PolicyFacts,
) {
  const mode = config.mode;
  const { children, tmpdir } = facts;
  const environment = inheritedEnvironment(facts.inheritedEnv, { tmpdir, inheritAll: mode === "dangerous" });
  return {
    mode,
    tmpdir,
    tmpdirProblems: facts.tmpdirProblems,
    environment,
    plan(request: CommandRequest): Promise<LaunchPlan> {
      if (gitDirsReadOnly(mode, request.grants)) refuseGitDirWorkdir(workspace, request.cwd);
      const verdict = checkCommand(request.cmd, request.env, {
        mode,
        gates: gatesInForce(mode, request.grants),
        workspace: workspace.root,
        cwd: request.cwd,
        // Without a private temp dir nothing but the workspace is allowed.
        paths: diskPaths(workspace.root, tmpdir ?? workspace.root),
      });
      if (!verdict.ok) {
        const { rule, gate, token, message, hint } = verdict.refusal;
        throw new ToolError("COMMAND_BLOCKED", `${message} (rule ${rule}, ${mode} mode)`, {
          hint,
          details: { rule, gate, token, mode },
        });
      }
      return Promise.resolve({
        argv: verdict.argv ?? [SHELL, "-c", request.cmd],
        env: { ...environment.env, ...verdict.inlineEnv, ...request.env },
        cwd: request.cwd,
        chdir: request.chdir,
        spawner: children.commandSpawner(mode, request.grants),
      });
    },
    sandbox: (grants: ReadonlySet<string>) => children.report(mode, grants, facts.gitReadable),
    /** The sandbox the latest command started with these grants runs under (`sandbox().commands` of its plan). */
    appliedSandbox: (grants: ReadonlySet<string>) => children.appliedCommandSandbox(mode, grants),
  };
}
