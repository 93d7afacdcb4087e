import type { GitService } from "./service.ts";
import { readRepoAt } from "./repo.ts";
import { gitFailure } from "./runner.ts";

/**
 * HEAD's branch (null when detached) and commit (null before the first one) from the refs alone (server_info reports
 * it on every call; `git status` would scan the whole work tree): `symbolic-ref` alongside the rev-parse
 * that confirms the repository and names HEAD's commit.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * await readHead(git); // { branch: "main", head: "3f2a…" }
 * ```
 */
export async function readHead(git: GitService): Promise<{ branch: string | null; head: string | null }> {
  const { run: ref, tips } = await readRepoAt(git, undefined, { allowMissing: true, pin: "HEAD^{commit}" }, () => ({
    args: ["symbolic-ref", "-q", "--short", "HEAD"],
    consumer: null,
  }));
  // symbolic-ref exits 1 for a detached HEAD.
  if (ref.code !== 0 && ref.code !== 1) throw gitFailure(ref, "symbolic-ref");
  const branch = ref.code === 0 ? new TextDecoder().decode(ref.stdout).trim() || null : null;
  return { branch, head: tips[0] ?? null };
}
