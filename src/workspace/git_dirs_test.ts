import * as path from "node:path";
import { assertEquals } from "../../testing/assert.ts";
import { git, initRepo } from "../../testing/git_fixtures.ts";
import { openWorkspace } from "./workspace.ts";
import { findGitDirs, gitDirContaining, gitDirsAt, gitFileTarget, looksLikeGitDir } from "./git_dirs.ts";

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-gitdirs-" }));
}

Deno.test("looksLikeGitDir and gitFileTarget: git's own test (HEAD, objects/, refs/, a worktree's common dir)", async () => {
  const root = await tempRoot();
  try {
    await initRepo(path.join(root, "repo"));
    await git(path.join(root, "repo"), "commit", "-q", "--allow-empty", "-m", "x");
    await git(path.join(root, "repo"), "worktree", "add", "-q", path.join(root, "wt"));
    assertEquals(looksLikeGitDir(path.join(root, "repo/.git")), true);
    assertEquals(looksLikeGitDir(path.join(root, "repo")), false);
    const worktreeGitDir = gitFileTarget(path.join(root, "wt/.git"))!;
    assertEquals([worktreeGitDir.startsWith(path.join(root, "repo/.git/worktrees")), looksLikeGitDir(worktreeGitDir)], [
      true,
      true,
    ]);
    await Deno.writeTextFile(path.join(root, "not-a-pointer"), "hello\n");
    assertEquals(gitFileTarget(path.join(root, "not-a-pointer")), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("gitDirsAt and findGitDirs: .git dirs, .git files with their git and common dirs, bare repos; inside only", async () => {
  const root = await tempRoot();
  const outside = await tempRoot();
  try {
    await initRepo(root);
    await git(root, "init", "-q", "--separate-git-dir", path.join(root, "meta"), path.join(root, "a"));
    await git(root, "init", "-q", "--bare", path.join(root, "b/bare.git"));
    await initRepo(outside);
    await Deno.mkdir(path.join(root, "c/d"), { recursive: true });
    await Deno.writeTextFile(path.join(root, "c/d/.git"), `gitdir: ${outside}/.git\n`);
    using ws = openWorkspace(root);
    const at = async (dir: string) => {
      using handle = ws.open(dir, { expect: "dir" });
      return (await gitDirsAt(root, handle)).sort();
    };
    assertEquals(await at(root), [path.join(root, ".git")]);
    assertEquals(await at(path.join(root, "a")), [path.join(root, "a/.git"), path.join(root, "meta")]);
    // The outside git dir is left out; the .git file itself is in the workspace and listed.
    assertEquals(await at(path.join(root, "c/d")), [path.join(root, "c/d/.git")]);
    // A symlinked directory is not walked into: its repository is not the workspace's.
    await initRepo(path.join(outside, "linked"));
    await Deno.symlink(path.join(outside, "linked"), path.join(root, "link"));
    const found = await findGitDirs(ws);
    assertEquals(found.paths, [
      path.join(root, ".git"),
      path.join(root, "a/.git"),
      path.join(root, "b/bare.git"),
      path.join(root, "c/d/.git"),
      path.join(root, "meta"),
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("gitDirContaining: by name (any case) or by what a directory is", async () => {
  const root = await tempRoot();
  try {
    await git(root, "init", "-q", "--separate-git-dir", path.join(root, "meta"), path.join(root, "w"));
    assertEquals(gitDirContaining(root, path.join(root, "meta/hooks/pre-commit")), path.join(root, "meta"));
    assertEquals(gitDirContaining(root, path.join(root, "x/.GIT/config")), path.join(root, "x/.GIT"));
    assertEquals(gitDirContaining(root, path.join(root, "w/src/a.ts")), null);
    assertEquals(gitDirContaining(root, path.join(root, "w/.git")), path.join(root, "w/.git"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
