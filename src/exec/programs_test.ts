import { assertEquals } from "../../testing/assert.ts";
import { probePrograms } from "./programs.ts";

Deno.test("probePrograms: a program on no PATH entry is null", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-path-" }));
  try {
    const none = probePrograms(dir);
    assertEquals([none.git, none.perl, none.python3], [null, null, null]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
