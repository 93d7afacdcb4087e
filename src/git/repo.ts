/**
 * Finds the repository a git tool works on and translates paths between
 * git and the workspace.
 *
 * The repository is discovered from a confined path (or the workspace
 * root). Its work tree must be the workspace, lie inside it, or contain
 * it. In the last case (a workspace inside a parent repository) git runs in
 * the workspace with the pathspec `.`, so nothing outside the workspace is
 * reported, and every path is reported relative to the workspace.
 *
 * @example
 * const repo = await openRepo(ws, "src/a.ts");
 * repo.toGit(abs);          // "src/a.ts" relative to repo.cwd
 * repo.fromTop("src/a.ts"); // workspace-relative, or null when outside
 */
import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { confine, isInside, toRelative, type Workspace } from "../workspace/confine.ts";
import { gitFailure, type GitRequest, type GitRun, runGit } from "./runner.ts";
import { driverOverrides } from "./safety.ts";

/** A repository opened for one tool call. */
export interface GitRepo {
  ws: Workspace;
  /** Where git runs: the top level when it is inside the workspace, else the workspace root. */
  cwd: string;
  /** True when the workspace lies inside the repository (git output is then limited to it). */
  parent: boolean;
  /** Environment blanking the repository's program-valued drivers (./safety.ts), when the call reads the work tree. */
  env: Record<string, string>;
  /** Path for git, relative to `cwd`, of an absolute path inside the workspace. */
  toGit(abs: string): string;
  /** Workspace-relative form of a path git printed relative to the top level; null when outside the workspace. */
  fromTop(gitPath: string): string | null;
  /** Workspace-relative form of a path git printed relative to `cwd`; null when outside the workspace. */
  fromCwd(gitPath: string): string | null;
  /** The default pathspec: `.` limiting output to the workspace in a parent repository, else none. */
  scope(): string[];
  /** Runs git in `cwd` with the driver overrides. */
  run(args: string[], options?: Pick<GitRequest, "onStdout" | "signal">): Promise<GitRun>;
}

const decoder = new TextDecoder();

/** The nearest existing directory at or above `abs`. */
async function nearestDirectory(abs: string): Promise<string> {
  let dir = abs;
  while (true) {
    try {
      const info = await Deno.stat(dir);
      return info.isDirectory ? dir : path.dirname(dir);
    } catch {
      const up = path.dirname(dir);
      if (up === dir) return dir;
      dir = up;
    }
  }
}

/** Options of {@linkcode openRepo}. */
export interface OpenOptions {
  /**
   * The call reads work-tree file contents (status, a diff against the work
   * tree, blame without a revision), where git would run filter drivers:
   * list the config to blank them. Reads of stored objects run no filter,
   * and textconv and external diff are off by flag, so they skip the listing.
   */
  readsWorkTree: boolean;
  signal?: AbortSignal;
}

/**
 * Opens the repository containing `target` (a confined workspace path) or
 * the workspace root.
 *
 * @example
 * const repo = await openRepo(ws, null, { readsWorkTree: true });
 */
export async function openRepo(ws: Workspace, target: string | null, options: OpenOptions): Promise<GitRepo> {
  const { signal } = options;
  const start = target === null ? ws.root : await nearestDirectory(target);
  const [top, config] = await Promise.all([
    runGit({ cwd: start, args: ["rev-parse", "--show-toplevel"], signal }),
    options.readsWorkTree ? runGit({ cwd: start, args: ["config", "-z", "--list", "--name-only"], signal }) : null,
  ]);
  if (top.code !== 0) {
    if (/must be run in a work tree|not a git repository/i.test(top.stderr)) {
      throw new ToolError("NOT_A_GIT_REPO", `${toRelative(ws, start)} is not inside a git work tree`, {
        details: { path: toRelative(ws, start), stderr: top.stderr },
      });
    }
    throw gitFailure(top, "rev-parse");
  }
  const topText = decoder.decode(top.stdout).replace(/\n$/, "");
  const topReal = await Deno.realPath(topText).catch(() => topText);
  const parent = !isInside(ws.root, topReal);
  if (parent && !isInside(topReal, ws.root)) {
    throw new ToolError("NOT_A_GIT_REPO", `the repository's work tree ${topReal} is outside the workspace`, {
      hint: "Git tools only work on a repository whose work tree is the workspace, inside it, or contains it.",
      details: { work_tree: topReal },
    });
  }
  const cwd = parent ? ws.root : topReal;
  let env: Record<string, string> = {};
  if (config) {
    // Fail closed: a listing that failed or was cut could hide a driver.
    if (config.code !== 0 || config.stopped) throw gitFailure(config, "config");
    env = driverOverrides(decoder.decode(config.stdout).split("\0").filter((key) => key.length > 0));
  }
  // git marks a directory (an untracked one, say) with a trailing "/": keep it.
  const from = (base: string, gitPath: string) => {
    const abs = path.join(base, gitPath);
    if (!isInside(ws.root, abs.replace(/\/$/, ""))) return null;
    return toRelative(ws, abs) + (gitPath.endsWith("/") ? "/" : "");
  };
  return {
    ws,
    cwd,
    parent,
    env,
    toGit: (abs) => path.relative(cwd, abs) || ".",
    fromTop: (gitPath) => from(topReal, gitPath),
    fromCwd: (gitPath) => from(cwd, gitPath),
    scope: () => parent ? ["."] : [],
    run: (args, options = {}) => runGit({ cwd, args, env, ...options }),
  };
}

/**
 * Confines a user path and opens its repository in one step.
 *
 * @example
 * const { repo, target } = await openRepoAt(ws, "src/a.ts", { allowMissing: true, readsWorkTree: false });
 */
export async function openRepoAt(
  ws: Workspace,
  input: string | undefined,
  options: OpenOptions & { allowMissing: boolean },
): Promise<{ repo: GitRepo; target: string | null }> {
  if (input === undefined) return { repo: await openRepo(ws, null, options), target: null };
  const confined = await confine(ws, input, { allowMissing: options.allowMissing });
  return { repo: await openRepo(ws, confined.abs, options), target: confined.abs };
}

/**
 * Refuses a revision git could read as an option (or that cannot be an argument at all).
 *
 * @example
 * checkRevision("--output=/etc/x", "rev"); // throws INVALID_ARGUMENT
 */
export function checkRevision(rev: string, field: string): string {
  if (rev.length === 0 || rev.startsWith("-") || /[\0\n\r]/.test(rev)) {
    throw new ToolError("INVALID_ARGUMENT", `${field}: ${JSON.stringify(rev)} is not a revision`, {
      hint: 'Give a revision such as "HEAD~2", a sha, a branch, or a range "A..B"; it may not start with "-".',
      details: { field },
    });
  }
  return rev;
}
