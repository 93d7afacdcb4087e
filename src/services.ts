/**
 * Long-lived services shared by every session of one server process,
 * created once at start-up from the Config and the Workspace.
 */
import type { Config } from "./config.ts";
import type { Workspace } from "./workspace/confine.ts";
import { locateRipgrep, type RipgrepBinary } from "./search/ripgrep_binary.ts";
import { type LandlockProbe, probeLandlock } from "./policy/landlock_probe.ts";
import { CommandRegistry } from "./exec/registry.ts";
import { probePty } from "./exec/pty.ts";
import { createCommandPolicy, type WorkcellPolicy } from "./policy/command_policy.ts";
import { ChildSandboxes } from "./policy/children.ts";
import { createPrivateTmp } from "./policy/private_tmp.ts";
import { Reactor } from "./exec/reactor.ts";
import { GitService } from "./git/service.ts";
import { makeNonDumpable } from "./os/process.ts";
import { SerialQueue } from "./image/serial.ts";
import { RipgrepRunner } from "./search/ripgrep_runner.ts";

/** Facts about the runtime, measured once at start-up. */
export interface RuntimeFacts {
  ripgrep: RipgrepBinary;
  landlock: LandlockProbe;
  /** Whether the workspace root is writable by the server. */
  workspaceWritable: boolean;
  /** Whether exec_command can give a child a real pseudo-terminal. */
  tty: { supported: boolean; reason: string | null };
}

/** What tool handlers share across sessions. */
export interface Services {
  facts: RuntimeFacts;
  /** Every command of this process (exec_command, write_stdin, kill_command, read_output). */
  commands: CommandRegistry;
  /** The mode's command gate, child environment and sandbox. */
  policy: WorkcellPolicy;
  /** The git of the git tools, in its own sandbox. */
  git: GitService;
  /** view_image decodes one image at a time through this, bounding its memory to one image. */
  imageQueue: SerialQueue;
  /** Runs rg for list_files and search_text, in its read-only sandbox. */
  ripgrepRunner: RipgrepRunner;
  /** Stops background work and children; called once at shutdown. */
  close(): Promise<void>;
}

async function isWritable(root: string): Promise<boolean> {
  const permission = await Deno.permissions.query({ name: "write", path: root });
  if (permission.state !== "granted") return false;
  try {
    // A read-only mount refuses utime on the directory with EROFS; the times are set to what they are.
    const info = await Deno.stat(root);
    if (info.atime && info.mtime) await Deno.utime(root, info.atime, info.mtime);
    return true;
  } catch {
    return false;
  }
}

/** Creates the services for one server process. */
export async function createServices(config: Config, workspace: Workspace): Promise<Services> {
  const [ripgrep, workspaceWritable] = await Promise.all([locateRipgrep(), isWritable(workspace.root)]);
  const facts: RuntimeFacts = {
    ripgrep,
    landlock: probeLandlock(),
    workspaceWritable,
    tty: probePty(),
  };
  makeNonDumpable();
  const tmp = createPrivateTmp();
  const env = Deno.env.toObject();
  const children = new ChildSandboxes(workspace, { tmpdir: tmp.path, env, landlock: facts.landlock, ripgrep });
  const reactor = new Reactor();
  const git = new GitService(workspace, children, reactor);
  const policy = createCommandPolicy(config, workspace, {
    children,
    tmpdir: tmp.path,
    gitReadable: git.trusted?.readable ?? [],
    inheritedEnv: env,
  });
  const commands = new CommandRegistry({ policy, tty: facts.tty });
  const ripgrepRunner = new RipgrepRunner({ rg: ripgrep, children, reactor });
  return {
    facts,
    commands,
    policy,
    git,
    imageQueue: new SerialQueue(),
    ripgrepRunner,
    close: async () => {
      await Promise.all([commands.close(), ripgrepRunner.close()]);
      await tmp.remove();
    },
  };
}
