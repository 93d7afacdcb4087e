/**
 * What HEAD names — the branch and its commit — read from the refs alone.
 * server_info reports it on every call; a `git status` there scanned the
 * whole work tree (211 ms on a 100,000-file repository), so whether the
 * work tree is clean is git_status's to say.
 *
 * @example
 * ```ts
 * import type { GitService } from "./service.ts";
 *
 * declare const git: GitService;
 * const { branch, head } = await readHead(git); // { branch: "main", head: "3f2a…" }
 * ```
 */
import type { GitService } from "./service.ts";
import { openRepo } from "./repo.ts";
import { gitFailure } from "./runner.ts";

/** The branch HEAD is on (null when detached) and its commit (null before the first one). */
export interface HeadInfo {
  branch: string | null;
  head: string | null;
}

const decoder = new TextDecoder();

/**
 * Reads HEAD of the workspace root's repository (throws NOT_A_GIT_REPO as the other git tools do).
 *
 * @example
 * ```ts
 * import type { GitService } from "./service.ts";
 *
 * declare const git: GitService;
 * await readHead(git); // { branch: null, head: "3f2a…" } when detached
 * ```
 */
export async function readHead(git: GitService): Promise<HeadInfo> {
  const repo = await openRepo(git, null, { readsWorkTree: false });
  // Both exit 1 for the case they do not name: a detached HEAD, and a branch without commits.
  const [ref, commit] = await Promise.all([
    repo.run(["symbolic-ref", "-q", "--short", "HEAD"]),
    repo.run(["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
  ]);
  for (const [run, command] of [[ref, "symbolic-ref"], [commit, "rev-parse"]] as const) {
    if (run.code !== 0 && run.code !== 1) throw gitFailure(run, command);
  }
  const line = (run: typeof ref) => run.code === 0 ? decoder.decode(run.stdout).trim() || null : null;
  return { branch: line(ref), head: line(commit) };
}
