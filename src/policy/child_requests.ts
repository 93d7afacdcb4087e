/** The requests child_sandbox_plan.ts (Linux) and seatbelt_policy.ts (darwin) plan every child's sandbox from. */
import * as path from "node:path";
import { resolveProgram } from "../os/spawn.ts";
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
 * The git on `searchPath` (real path), its exec path (`git --exec-path`: where git finds its own helper programs) and
 * its ELF loader (none for a Mach-O) with the loader's real path, which the kernel opens for execution too; null when
 * none runs.
 * @example
 * ```ts
 * const git = await gitImage("/usr/bin:/bin"); // { binary: "/usr/bin/git", execPath: "/usr/lib/git-core", loaders: [...] }
 * ```
 */
export async function gitImage(searchPath: string | undefined) {
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

/** The request of the git of a git tool in the workspace `root`, which may read `readable` and the user's git config. */
export function gitChild(root: string, env: Record<string, string>, git: GitImage, readable: string[]): ChildRequest {
  const config = [
    ...(env.HOME ? [path.join(env.HOME, ".gitconfig"), path.join(env.HOME, ".config", "git")] : []),
    ...(env.XDG_CONFIG_HOME ? [path.join(env.XDG_CONFIG_HOME, "git")] : []),
  ];
  return { kind: "git", root, readable, git, config };
}

/** The request of rg in the workspace `root`, which may execute `executables` (itself, where the sandbox can name it). */
export function ripgrepChild(root: string, executables: string[]): ChildRequest {
  return { kind: "ripgrep", root, executables, ignoreFiles: ancestorIgnoreFiles(root) };
}
