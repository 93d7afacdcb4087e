import { assertEquals } from "../testing/assert.ts";
import { probePrograms } from "./programs.ts";
import { findOnPath } from "../os/spawn.ts";

Deno.test("probePrograms through findOnPath (os/spawn.ts): the first executable file in an absolute PATH entry", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-path-" }));
  try {
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b`);
    await Deno.writeTextFile(`${dir}/a/tool`, "not executable");
    await Deno.writeTextFile(`${dir}/b/tool`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.mkdir(`${dir}/a/dir-tool`);
    assertEquals(findOnPath("tool", `relative:${dir}/a:${dir}/b`), `${dir}/b/tool`);
    assertEquals(findOnPath("dir-tool", `${dir}/a`), null);
    assertEquals(findOnPath("tool", ""), null);
    const none = probePrograms(dir);
    assertEquals([none.git, none.perl, none.python3], [null, null, null]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
