import { assert, assertEquals } from "../../testing/assert.ts";
import { BeneathDirs, DIR_HANDLES_KEPT } from "./beneath_dirs.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { openFds } from "../../testing/fd_identity.ts";

Deno.test("BeneathDirs: many directories, never more than DIR_HANDLES_KEPT open; a symlink is null", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-beneath-dirs-" }));
  try {
    const count = DIR_HANDLES_KEPT * 2 + 5;
    for (let i = 0; i < count; i++) {
      await Deno.mkdir(`${base}/ws/d${i}/sub`, { recursive: true });
      await Deno.writeTextFile(`${base}/ws/d${i}/sub/f.txt`, "x".repeat(i));
    }
    await Deno.mkdir(`${base}/outside`);
    await Deno.writeTextFile(`${base}/outside/f.txt`, "secret");
    await Deno.symlink(`${base}/outside`, `${base}/ws/escape`);
    using ws = openWorkspace(`${base}/ws`);
    using top = ws.open(".", { expect: "dir" });
    const before = openFds(base).length;
    let most = 0;
    {
      using dirs = new BeneathDirs(top);
      assert(dirs.get(".") === top);
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < count; i++) {
          assertEquals(dirs.get(`d${i}/sub`)?.statEntry("f.txt").size, i);
          most = Math.max(most, openFds(base).length - before);
        }
      }
      assertEquals(dirs.get("escape"), null);
      assertEquals(dirs.get("missing"), null);
    }
    assert(most <= DIR_HANDLES_KEPT, `${most} handles open at once`);
    assertEquals(openFds(base).length, before);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
