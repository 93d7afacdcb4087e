import { assertEquals } from "../../testing/assert.ts";
import { commitAll, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import { readHead } from "./head.ts";

Deno.test("readHead: the branch before its first commit, then its commit, then a detached HEAD", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-head-" }));
  try {
    await initRepo(root);
    using git = gitServiceFor(root);
    assertEquals(await readHead(git), { branch: "main", head: null });
    await writeFiles(root, { "a.txt": "one\n" });
    await commitAll(root, "one");
    const { head } = await readHead(git);
    assertEquals([head?.length, (await readHead(git)).branch], [40, "main"]);
    await new Deno.Command("git", { args: ["checkout", "-q", "--detach"], cwd: root }).output();
    assertEquals(await readHead(git), { branch: null, head });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
