import type { Config } from "./config.ts";
import type { Workspace } from "./workspace/workspace.ts";
import { locateRipgrep } from "./search/ripgrep_binary.ts";
import { probeLandlock } from "./policy/landlock_probe.ts";
import { CommandRegistry } from "./exec/registry.ts";
import { probePty } from "./os/pty.ts";
import { createCommandPolicy } from "./policy/command_policy.ts";
import { createChildSpawners } from "./policy/child_spawners.ts";
import { choosePrivateTmp } from "./policy/private_tmp.ts";
import { Reactor } from "./os/reactor.ts";
import { GitService } from "./git/service.ts";
import { makeNonDumpable } from "./os/process.ts";
import { SerialQueue } from "./async/serial.ts";
import { ImageRenderer } from "./image/renderer.ts";
import { RipgrepRunner } from "./search/ripgrep_runner.ts";
import { probePrograms } from "./exec/programs.ts";
import { cString, libc } from "./os/libc.ts";

/** Facts about the runtime, measured once at start-up. */
export type RuntimeFacts = Awaited<ReturnType<typeof probeFacts>>;

/** What tool handlers share across the sessions of one process, built once the workspace is bound. */
export type Services = ReturnType<typeof createServices>;

/** access(2) W_OK, not Deno's write grant: the server writes through libc, so the kernel decides (EROFS, EACCES). */
function isWritable(root: string): boolean {
  const W_OK = 2;
  return libc().access(cString(root), W_OK) === 0;
}

/**
 * Probes the machine once: ripgrep, Landlock, PTYs, programs on PATH.
 * @example
 * ```ts
 * const facts = await probeFacts();
 * ```
 */
export async function probeFacts() {
  return {
    ripgrep: await locateRipgrep(),
    landlock: probeLandlock(),
    tty: probePty(),
    /** Where git, perl, python3 and /bin/sh were found, on the PATH children inherit. */
    programs: probePrograms(Deno.env.get("PATH") ?? ""),
  };
}

/**
 * Creates the services of one server process on its workspace.
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace/workspace.ts";
 * declare const config: import("./config.ts").Config;
 * createServices(config, openWorkspace("/repo"), await probeFacts());
 * ```
 */
export function createServices(config: Config, workspace: Workspace, facts: RuntimeFacts) {
  makeNonDumpable();
  const { tmp, problems: tmpdirProblems } = choosePrivateTmp();
  if (tmp === null) {
    console.error(`workcell: WARNING: commands run without a private TMPDIR: ${tmpdirProblems.join("; ")}`);
  }
  const env = Deno.env.toObject();
  const ripgrep = facts.ripgrep;
  const children = createChildSpawners(workspace, {
    tmpdir: tmp?.path ?? null,
    env,
    landlock: facts.landlock,
    ripgrep,
  });
  const reactor = new Reactor();
  const git = new GitService(workspace, children, reactor);
  const policy = createCommandPolicy(config, workspace, {
    children,
    tmpdir: tmp?.path ?? null,
    tmpdirProblems,
    gitReadable: git.trusted?.readable ?? [],
    inheritedEnv: env,
  });
  const commands = new CommandRegistry({ policy, tty: facts.tty, reactor });
  const ripgrepRunner = new RipgrepRunner({ rg: ripgrep, children, reactor });
  const imageRenderer = new ImageRenderer();
  return {
    facts,
    /** Whether the kernel lets the server write in the workspace root (not a read-only mount, permissions allow it). */
    workspaceWritable: isWritable(workspace.root),
    commands,
    policy,
    git,
    /** view_image decodes one image at a time through this, bounding its memory to one image. */
    imageQueue: new SerialQueue(),
    imageRenderer,
    ripgrepRunner,
    close: async (): Promise<void> => {
      imageRenderer.close();
      await Promise.all([commands.close(), ripgrepRunner.close()]);
      await tmp?.remove();
    },
  };
}
