import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { MAX_PATCH_FILE_BYTES } from "./lookup.ts";
import type { LookupPath } from "./lookup.ts";
import { type Plan, planOps, planPatch } from "./plan.ts";
import { parsePatch } from "./parse.ts";

Deno.test("a file over MAX_PATCH_FILE_BYTES is FILE_TOO_LARGE, refused before it is read", async () => {
  const ws = openWorkspace(await Deno.makeTempDir({ prefix: "workcell-plan-" }));
  try {
    const big = path.join(ws.root, "big.log");
    await Deno.writeTextFile(big, "x\n");
    await Deno.truncate(big, MAX_PATCH_FILE_BYTES + 1); // sparse: no real disk use
    const error = await assertRejects(() =>
      planPatch(ws, parsePatch("*** Begin Patch\n*** Update File: big.log\n@@\n-x\n+y\n*** End Patch"))
    );
    assert(error instanceof ToolError, String(error));
    assertEquals(error.code, "FILE_TOO_LARGE");
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("matching writes nothing and plans one change per touched path", async () => {
  const ws = openWorkspace(await Deno.makeTempDir({ prefix: "workcell-plan-" }));
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    const plan = await planPatch(
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

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A LookupPath over an in-memory tree; `aliases` maps a spelling to the real path it resolves to. */
function tree(files: Record<string, string>, options: { aliases?: Record<string, string>; refuse?: string[] } = {}) {
  const asked: string[] = [];
  const look: LookupPath = (spelled) => {
    asked.push(spelled);
    if (options.refuse?.includes(spelled)) {
      return Promise.reject(new ToolError("PATH_OUTSIDE_WORKSPACE", `${spelled} leaves the workspace`));
    }
    const rel = options.aliases?.[spelled] ?? spelled;
    const text = files[rel];
    return Promise.resolve({ rel, state: text === undefined ? null : { bytes: encode(text), mode: 0o640 } });
  };
  return { look, asked };
}

const ops = (...lines: string[]) => parsePatch(["*** Begin Patch", ...lines, "*** End Patch"].join("\n")).ops;

function summary(plan: Plan) {
  return plan.changes.map((c) => [c.rel, c.before && decode(c.before.bytes), c.after && decode(c.after.bytes)]);
}

Deno.test("planOps applies operations in order to a virtual tree: update twice, delete then add, move onto a deleted path", async () => {
  const { look } = tree({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
  const plan = await planOps(
    ops(
      "*** Update File: a.txt",
      "@@",
      "-a",
      "+a1",
      "*** Update File: a.txt",
      "@@",
      "-a1",
      "+a2",
      "*** Delete File: b.txt",
      "*** Add File: b.txt",
      "+new b",
      "*** Delete File: c.txt",
      "*** Update File: a.txt",
      "*** Move to: c.txt",
    ),
    look,
  );
  assertEquals(summary(plan), [
    ["a.txt", "a\n", null],
    ["b.txt", "b\n", "new b\n"],
    ["c.txt", "c\n", "a2\n"],
  ]);
  assertEquals(plan.changes.find((c) => c.rel === "c.txt")?.after?.mode, 0o640, "a move keeps the source's mode");
  assertEquals(plan.files.map((f) => f.op), ["update", "update", "delete", "add", "delete", "move"]);
});

Deno.test("planOps gives one slot to every spelling of a real path, and no change when the content comes back", async () => {
  const { look } = tree({ "a.txt": "a\n" }, { aliases: { "./a.txt": "a.txt" } });
  const plan = await planOps(
    ops("*** Update File: ./a.txt", "@@", "-a", "+b", "*** Update File: a.txt", "@@", "-b", "+a"),
    look,
  );
  assertEquals(plan.changes, []);
  assertEquals(plan.files.map((f) => f.path), ["a.txt", "a.txt"]);
});

Deno.test("planOps throws the first error in patch order, NOT_FOUND of a source before its destination's lookup", async () => {
  const { look } = tree({ "a.txt": "a\n" }, { refuse: ["../out.txt"] });
  const error = await assertRejects(() => planOps(ops("*** Update File: ghost.txt", "*** Move to: ../out.txt"), look));
  assert(error instanceof ToolError && error.code === "NOT_FOUND", String(error));
  const later = await assertRejects(() =>
    planOps(ops("*** Delete File: a.txt", "*** Delete File: a.txt", "*** Delete File: ../out.txt"), look)
  );
  assert(later instanceof ToolError && later.message.includes("earlier in this patch"), String(later));
});

Deno.test("planOps refuses to overwrite: Add File onto a file, Move to onto a file", async () => {
  const { look } = tree({ "a.txt": "a\n", "b.txt": "b\n" });
  for (const patch of [ops("*** Add File: a.txt", "+x"), ops("*** Update File: a.txt", "*** Move to: b.txt")]) {
    const error = await assertRejects(() => planOps(patch, look));
    assert(error instanceof ToolError && error.code === "ALREADY_EXISTS", String(error));
  }
});
