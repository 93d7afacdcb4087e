/**
 * Write confinement for the compiled binary. `deno compile` bakes the
 * permission flags in, so the binary carries `--allow-write=.`, which Deno
 * resolves against the process's starting directory once, at start. When a
 * client starts the binary elsewhere (`workcell --workspace ~/proj` from
 * `$HOME` or `/`), the binary re-executes itself with the workspace as its
 * working directory: the new process's `.` is the workspace, so Deno refuses
 * the server's own writes anywhere else. The first process only waits,
 * forwards signals and passes the exit status on; it never writes. The
 * workspace is known here only when `--workspace` or `CLAUDE_PROJECT_DIR`
 * names it; when the client's roots decide it, the process that answered
 * initialize re-executes itself there instead (src/session/handoff.ts).
 *
 * @example
 * ```ts
 * import { launchWorkspace } from "../workspace/resolve.ts";
 *
 * const launch = await relaunchIntoWorkspace(Deno.args); // never returns when it relaunched
 * launchWorkspace({ flag: null, projectDir: undefined, cwd: launch.cwd });
 * ```
 */
import { parseArgs, UsageError } from "../config.ts";
import { launchWorkspace, PROJECT_DIR_ENV } from "../workspace/resolve.ts";

/** Set in the relaunched process: where the user started the binary. */
export const LAUNCH_CWD_ENV = "WORKCELL_LAUNCH_CWD";

/** Where relative command-line paths resolve (the user's directory, not the workspace). */
export interface Launch {
  cwd: string;
}

/** Signals passed on to the relaunched process. */
const FORWARDED_SIGNALS: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Whether a process started in `cwd` must relaunch into `workspace` (both
 * real paths) before serving, given whether it is a compiled binary.
 *
 * @example
 * ```ts
 * needsRelaunch({ standalone: true, cwd: "/home/u", workspace: "/home/u/proj" }); // true
 * ```
 */
export function needsRelaunch(facts: { standalone: boolean; cwd: string; workspace: string }): boolean {
  return facts.standalone && facts.cwd !== facts.workspace;
}

/**
 * The directory a compiled binary must run in before serving, from the
 * command line and the environment: the `--workspace` or `CLAUDE_PROJECT_DIR`
 * directory, or null when the client's roots (or the cwd) will decide.
 *
 * @example
 * ```ts
 * relaunchTarget(["--mode", "trusted"], { CLAUDE_PROJECT_DIR: "/home/u/app" }, "/"); // "/home/u/app"
 * ```
 */
export function relaunchTarget(
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string,
): string | null {
  let parsed;
  try {
    parsed = parseArgs(args, env);
  } catch (error) {
    if (error instanceof UsageError) return null;
    throw error;
  }
  if (parsed.kind !== "run") return null;
  const launch = launchWorkspace({ flag: parsed.config.workspace, projectDir: env[PROJECT_DIR_ENV], cwd });
  return launch.kind === "fixed" ? launch.choice.dir : null;
}

async function realPathOrNull(dir: string): Promise<string | null> {
  try {
    return await Deno.realPath(dir);
  } catch {
    return null;
  }
}

/**
 * In a compiled binary started outside its workspace, runs the binary again
 * with the workspace as working directory and exits with its status; returns
 * the launch directory otherwise. Bad command lines and missing workspaces
 * are left to main.ts to report.
 */
export async function relaunchIntoWorkspace(args: readonly string[]): Promise<Launch> {
  const inherited = Deno.env.get(LAUNCH_CWD_ENV);
  Deno.env.delete(LAUNCH_CWD_ENV);
  const cwd = inherited ?? Deno.cwd();
  if (!Deno.build.standalone) return { cwd };
  const target = relaunchTarget(args, Deno.env.toObject(), cwd);
  const workspace = target === null ? null : await realPathOrNull(target);
  const here = await realPathOrNull(Deno.cwd());
  if (workspace === null || here === null || !needsRelaunch({ standalone: true, cwd: here, workspace })) {
    return { cwd };
  }
  if (inherited !== undefined) {
    console.error(`workcell: relaunched into ${workspace} but started in ${here}; refusing to loop`);
    Deno.exit(1);
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: workspace,
    env: { [LAUNCH_CWD_ENV]: cwd },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  for (const signal of FORWARDED_SIGNALS) {
    Deno.addSignalListener(signal, () => {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    });
  }
  // A child ended by a signal reports 128 + its number, as a shell would.
  Deno.exit((await child.status).code);
}
