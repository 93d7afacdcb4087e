import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace } from "../workspace/confine.ts";
import { matchPatch, MAX_PATCH_FILE_BYTES } from "./match.ts";
import { parsePatch } from "./parse.ts";

Deno.test("a file over MAX_PATCH_FILE_BYTES is FILE_TOO_LARGE, refused before it is read", async () => {
  const ws = await openWorkspace(await Deno.makeTempDir({ prefix: "workcell-match-" }));
  try {
    const big = path.join(ws.root, "big.log");
    await Deno.writeTextFile(big, "x\n");
    await Deno.truncate(big, MAX_PATCH_FILE_BYTES + 1); // sparse: no real disk use
    const error = await assertRejects(() =>
      matchPatch(ws, parsePatch("*** Begin Patch\n*** Update File: big.log\n@@\n-x\n+y\n*** End Patch"))
    );
    assert(error instanceof ToolError, String(error));
    assertEquals(error.code, "FILE_TOO_LARGE");
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("matching writes nothing and plans one change per touched path", async () => {
  const ws = await openWorkspace(await Deno.makeTempDir({ prefix: "workcell-match-" }));
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    const plan = await matchPatch(
      ws,
      parsePatch(
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+b\n*** Update File: b.txt\n@@\n-b\n+c\n*** End Patch",
      ),
    );
    assertEquals(
      plan.changes.map((c) => [c.rel, c.before !== null, c.after && new TextDecoder().decode(c.after.bytes)]),
      [
        ["a.txt", true, null],
        ["b.txt", false, "c\n"],
      ],
    );
    assertEquals([...Deno.readDirSync(ws.root)].map((e) => e.name), ["a.txt"]);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});
