import * as path from "node:path";
import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { initRepo } from "../../tests/git_fixtures.ts";
import { openWorkspace } from "../workspace/confine.ts";
import { checkRevision, openRepo } from "./repo.ts";
import type { ToolError } from "../errors.ts";

Deno.test("openRepo maps paths for a parent repository, a nested one and the workspace itself", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    await initRepo(root);
    await initRepo(path.join(root, "ws/nested"));
    const ws = await openWorkspace(path.join(root, "ws"));
    const parent = await openRepo(ws, null, { readsWorkTree: false });
    assertEquals([parent.parent, parent.cwd, parent.scope()], [true, ws.root, ["."]]);
    assertEquals([parent.fromTop("ws/a.txt"), parent.fromTop("other.txt")], ["a.txt", null]);
    assertEquals([parent.fromTop("ws/dir/"), parent.fromTop("ws/"), parent.fromTop("wsx/")], ["dir/", "./", null]);
    const nested = await openRepo(ws, path.join(ws.root, "nested/missing/file"), { readsWorkTree: true });
    assertEquals([nested.parent, nested.scope(), nested.fromCwd("x.txt")], [false, [], "nested/x.txt"]);
    assertEquals(nested.toGit(path.join(ws.root, "nested/d/x.txt")), "d/x.txt");
    assertEquals(nested.env.GIT_CONFIG_COUNT, "0");
    const self = await openRepo(await openWorkspace(root), null, { readsWorkTree: false });
    assertEquals([self.parent, self.fromTop("ws/a.txt")], [false, "ws/a.txt"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkRevision refuses what git could read as an option", () => {
  for (const rev of ["-n1", "--output=x", "", "a\nb"]) {
    assertEquals((assertThrows(() => checkRevision(rev, "rev")) as ToolError).code, "INVALID_ARGUMENT");
  }
  assertEquals(checkRevision("main..feature", "rev"), "main..feature");
});
