/** The requests child_sandbox_plan.ts (Linux) and seatbelt_policy.ts (darwin) plan every child's sandbox from. */
import * as path from "node:path";
import type { Mode } from "./modes.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { findGitDirs, gitDirsAt } from "../workspace/git_dirs.ts";
import { resolveProgram } from "../os/spawn.ts";
import { lstatPath } from "../os/fs_stat.ts";
import { elfInterpreter } from "../os/elf.ts";
import { ancestorIgnoreFiles } from "./ignore_files.ts";
import type { ChildRequest, GitImage } from "./child_sandbox_plan.ts";
import type { LandlockProbe } from "./landlock_probe.ts";

/** What the children need from start-up. */
export interface ChildOptions {
  tmpdir: string | null;
  /** The server's environment (HOME and PATH are read from it). */
  env: Record<string, string>;
  landlock: LandlockProbe;
  /** The rg of list_files and search_text (the compiled binary's is a memfd: `fd` set). */
  ripgrep: { path: string; fd: number | null };
}

/**
 * The git on `searchPath` (real path), its exec path and its ELF loader (none for a Mach-O); null when none runs.
 * @example
 * ```ts
 * const git = await gitImage("/usr/bin:/bin"); // { binary: "/usr/bin/git", execPath: "/usr/lib/git-core", loaders: [...] }
 * ```
 */
export async function gitImage(searchPath: string | undefined): Promise<GitImage | null> {
  let binary: string;
  try {
    binary = Deno.realPathSync(resolveProgram("git", searchPath));
  } catch {
    return null;
  }
  // --exec-path prints and exits before any config or repository is read.
  const out = await new Deno.Command(binary, {
    args: ["--exec-path"],
    cwd: "/",
    clearEnv: true,
    env: { PATH: searchPath ?? "/usr/bin:/bin" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!out?.success) return null;
  const execPath = new TextDecoder().decode(out.stdout).trim();
  const loaders: string[] = [];
  const loader = elfInterpreter(binary);
  if (loader !== null) {
    loaders.push(loader);
    try {
      loaders.push(Deno.realPathSync(loader));
    } catch {
      // the kernel would fail to run git as well
    }
  }
  return { binary, execPath, loaders };
}

/**
 * The key of a session's mode and grants: what the latest command's sandbox is remembered by.
 * @example
 * ```ts
 * planKey("safe", new Set(["network", "shell"])); // "safe:network,shell"
 * ```
 */
export function planKey(mode: Mode, grants: ReadonlySet<string>): string {
  return `${mode}:${[...grants].sort().join(",")}`;
}

/** The requests of one workspace's children. */
export class ChildRequests {
  #git: Promise<GitImage | null> | null = null;
  #nested: string[] | null = null;
  readonly #registeredGitDirs = new Set<string>();

  constructor(readonly ws: Workspace, readonly options: ChildOptions) {}

  gitImage(): Promise<GitImage | null> {
    return this.#git ??= gitImage(this.options.env.PATH);
  }

  registerGitDirs(paths: readonly string[]): void {
    for (const p of paths) this.#registeredGitDirs.add(p);
  }

  /** The workspace's git dirs now: the root's (looked at each time), nested ones (found once), registered ones. */
  async gitDirs(): Promise<string[]> {
    this.#nested ??= (await findGitDirs(this.ws)).paths;
    using top = this.ws.open(".", { expect: "dir" });
    const all = new Set([...await gitDirsAt(this.ws.root, top), ...this.#nested, ...this.#registeredGitDirs]);
    // Gone ones are left out (a failing lstatPath builds no error object: this runs at every spawn).
    return [...all].filter((p) => lstatPath(p) !== null);
  }

  gitChild(git: GitImage, readable: string[]): ChildRequest {
    const home = this.options.env.HOME;
    const xdg = this.options.env.XDG_CONFIG_HOME;
    const config = [
      ...(home ? [path.join(home, ".gitconfig"), path.join(home, ".config", "git")] : []),
      ...(xdg ? [path.join(xdg, "git")] : []),
    ];
    return { kind: "git", root: this.ws.root, readable, git, config };
  }

  /** The request of rg, which may execute `executables` (itself, where the sandbox can name it). */
  ripgrepChild(executables: string[]): ChildRequest {
    return { kind: "ripgrep", root: this.ws.root, executables, ignoreFiles: ancestorIgnoreFiles(this.ws.root) };
  }
}
