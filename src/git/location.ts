import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { isInside } from "../workspace/confine.ts";
import { commonDirOf, gitFileTarget, looksLikeGitDir } from "../workspace/git_dirs.ts";
import { lstatPath } from "../os/fs_stat.ts";

/** A repository as found on disk. */
export interface RepositoryLocation {
  /** The directory holding `.git`: the work tree's top level. */
  top: string;
  /** Real path of the git dir, and of its common dir (the same unless a worktree's). */
  gitDir: string;
  commonDir: string;
  /** What git may read outside the workspace for it: trusted git dirs and the ignore files above the root. */
  readable: string[];
}

const PER_DIRECTORY_FILES = [".gitignore", ".gitattributes"] as const;

/**
 * The real path of `p`, or null if it cannot be resolved; sync: microseconds, where the async op costs a thread-pool hop.
 * @example
 * ```ts
 * realPathOrNull("/ws/missing"); // null
 * ```
 */
export function realPathOrNull(p: string): string | null {
  try {
    return Deno.realPathSync(p);
  } catch {
    return null;
  }
}

/** The nearest repository at or above `dir` (absolute): its top, git dir and common dir, or null. */
export function findRepository(dir: string): Omit<RepositoryLocation, "readable"> | null {
  for (let at = dir;; at = path.dirname(at)) {
    const dotGit = path.join(at, ".git");
    const info = lstatPath(dotGit);
    if (info !== null) {
      const target = info.kind === "file" ? gitFileTarget(dotGit) : dotGit;
      const gitDir = target === null ? null : realPathOrNull(target);
      if (gitDir !== null && looksLikeGitDir(gitDir)) {
        const named = commonDirOf(gitDir);
        return { top: at, gitDir, commonDir: (named && realPathOrNull(named)) ?? gitDir };
      }
    }
    if (at === path.dirname(at)) return null;
  }
}

/** The root's repository at start-up and what outside the workspace its git may read; null if none or wholly inside. */
export function trustedLocation(root: string): RepositoryLocation | null {
  const found = findRepository(root);
  if (found === null) return null;
  const outside = [found.gitDir, found.commonDir].filter((dir) => !isInside(root, dir));
  if (outside.length === 0 && isInside(root, found.top)) return null;
  const readable = new Set(outside);
  if (!isInside(root, found.top)) {
    // A workspace inside the work tree: git reads the ignore and attributes files from the top down to it.
    for (let dir = path.dirname(root); isInside(found.top, dir); dir = path.dirname(dir)) {
      for (const name of PER_DIRECTORY_FILES) {
        const file = path.join(dir, name);
        if (lstatPath(file)?.kind === "file") readable.add(file);
      }
      if (dir === found.top) break;
    }
  }
  return { ...found, readable: [...readable] };
}

/**
 * The repository containing `dir` (a real directory in the workspace `root`), found as git does before git runs.
 * NOT_A_GIT_REPO if none; PATH_OUTSIDE_WORKSPACE if its git or common dir is outside and not `trusted` (the start-up
 * root's, {@linkcode trustedLocation}), so a planted `.git` file shows no outside repository. git's sandbox reads only
 * the workspace, these git dirs and the system (src/policy/child_sandbox_plan.ts), so a later swap leads nowhere.
 * @example
 * ```ts
 * locateRepository("/ws", "/ws/ext", null); // throws PATH_OUTSIDE_WORKSPACE for ext/.git → /elsewhere
 * ```
 */
export function locateRepository(root: string, dir: string, trusted: RepositoryLocation | null): RepositoryLocation {
  const found = findRepository(dir);
  const rel = path.relative(root, dir) || ".";
  if (found === null) {
    throw new ToolError("NOT_A_GIT_REPO", `${rel} is not inside a git work tree`, { details: { path: rel } });
  }
  const trustedDirs = new Set(trusted ? [trusted.gitDir, trusted.commonDir] : []);
  for (const gitDir of [found.gitDir, found.commonDir]) {
    if (isInside(root, gitDir) || trustedDirs.has(gitDir)) continue;
    const where = path.relative(root, found.top) || ".";
    const message =
      `${where}/.git leads to a git dir outside the workspace (${gitDir}); git tools read only repositories of the workspace`;
    throw new ToolError("PATH_OUTSIDE_WORKSPACE", message, {
      hint: "Only the workspace's own repository (and one it lies in, as found at start-up) can be read. " +
        "Start workcell with --workspace at that repository to inspect it.",
      details: { path: where, git_dir: gitDir },
    });
  }
  if (!isInside(root, found.top) && !(trusted && found.top === trusted.top)) {
    throw new ToolError("NOT_A_GIT_REPO", `the repository's work tree ${found.top} is outside the workspace`, {
      hint: "Git tools only work on a repository whose work tree is the workspace, inside it, or contains it.",
      details: { work_tree: found.top },
    });
  }
  const usesTrusted = trustedDirs.has(found.gitDir) || trustedDirs.has(found.commonDir);
  const readable = trusted !== null && usesTrusted ? trusted.readable : [];
  return { ...found, readable };
}
