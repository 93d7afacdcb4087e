import { assert, assertEquals } from "../../testing/assert.ts";
import { commitAll, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import { gitEnv, gitFailure, type GitRequest } from "./runner.ts";

Deno.test("gitEnv passes nothing of the parent's git environment", () => {
  Deno.env.set("GIT_DIR", "/nonexistent");
  try {
    const env = gitEnv({ GIT_CONFIG_COUNT: "1" });
    assertEquals(env.GIT_DIR, undefined);
    assertEquals([env.GIT_TERMINAL_PROMPT, env.LC_ALL, env.GIT_CONFIG_COUNT, env.GIT_FLUSH], ["0", "C", "1", "0"]);
  } finally {
    Deno.env.delete("GIT_DIR");
  }
});

Deno.test("runGit stops and kills git when the consumer says so, and maps failures", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-runner-" }));
  try {
    await initRepo(dir);
    using git = gitServiceFor(dir);
    const location = git.locate(dir);
    const runGit = (request: GitRequest) => git.run(location, request);
    await writeFiles(dir, { "big.txt": "x".repeat(200_000) + "\n" });
    await commitAll(dir, "big");
    let chunks = 0;
    const run = await runGit({
      cwd: dir,
      args: ["cat-file", "-p", "HEAD:big.txt"],
      onStdout: () => ++chunks < 1 ? undefined : false,
    });
    assert(run.stopped && chunks === 1, `stopped ${run.stopped} after ${chunks} chunks`);
    const bounded = await runGit({ cwd: dir, args: ["cat-file", "-p", "HEAD:big.txt"], collectBytes: 100 });
    assertEquals([bounded.stopped, bounded.stdout.length], [true, 100]);
    const bad = await runGit({ cwd: dir, args: ["log", "no-such-rev", "--"] });
    assertEquals(gitFailure(bad, "log").code, "INVALID_ARGUMENT");
    const outside = await git.run({ ...location, readable: [] }, { cwd: "/", args: ["status"] });
    assertEquals(gitFailure(outside, "status").code, "NOT_A_GIT_REPO");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
