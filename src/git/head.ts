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
import { readRepoAt } from "./repo.ts";
import { gitFailure } from "./runner.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** The branch HEAD is on (null when detached) and its commit (null before the first one). */
export interface HeadInfo {
  branch: string | null;
  head: string | null;
}

const decoder = new TextDecoder();

/**
 * Reads HEAD of the workspace root's repository (throws NOT_A_GIT_REPO as the other git tools do). Two git
 * starts, at once: `symbolic-ref` for the branch, alongside the rev-parse that confirms the repository and
 * names HEAD's commit in the same run (nothing before the first commit).
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
  const { run: ref, consumer: chunks, tips } = await readRepoAt(
    git,
    undefined,
    { allowMissing: true, pin: "HEAD^{commit}" },
    () => {
      const chunks: Uint8Array[] = [];
      return {
        args: ["symbolic-ref", "-q", "--short", "HEAD"],
        consumer: chunks,
        onStdout: (c) => void chunks.push(c),
      };
    },
  );
  // symbolic-ref exits 1 for a detached HEAD.
  if (ref.code !== 0 && ref.code !== 1) throw gitFailure(ref, "symbolic-ref");
  const branch = ref.code === 0 ? decoder.decode(joinBytes(chunks)).trim() || null : null;
  return { branch, head: tips[0] ?? null };
}
