/**
 * The commit against a tree that changes under it: a file edited, swapped
 * for a symlink or created between planning and install, a parent directory
 * replaced by a symlink to outside or by another directory.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { interrupted } from "../../testing/patch_faults.ts";
import { openFds } from "../../testing/fd_identity.ts";
import { snapshot, treeDifferences } from "../../testing/tree_snapshot.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace, type Workspace } from "../workspace/workspace.ts";
import type { FileBackend } from "../workspace/handle.ts";
import { commitChanges } from "./commit.ts";
import { type FsOps, HANDLE_OPS } from "./fs_ops.ts";
import { planPatch } from "./plan.ts";
import { parsePatch } from "./parse.ts";
import { TEST_BACKENDS } from "../../testing/backend.ts";

/** Both fd backends: a swap mid-commit lands in the directory pinned, never outside. */
const BACKENDS = TEST_BACKENDS;

async function workspace(backend?: FileBackend): Promise<Workspace> {
  return openWorkspace(await Deno.makeTempDir({ prefix: "workcell-commit-" }), backend);
}

Deno.test("a target swapped for a symlink to outside after matching is never written through", async () => {
  const ws = await workspace();
  const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    await Deno.writeTextFile(path.join(outside, "secret.txt"), "a\n");
    const plan = await planPatch(
      ws,
      parsePatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+pwned\n*** End Patch"),
    );
    await Deno.remove(path.join(ws.root, "a.txt"));
    await Deno.symlink(path.join(outside, "secret.txt"), path.join(ws.root, "a.txt"));
    const error = await assertRejects(() => commitChanges(ws, plan.changes));
    assert(error instanceof ToolError && error.code === "PATCH_CONFLICT", String(error));
    assertEquals(await Deno.readTextFile(path.join(outside, "secret.txt")), "a\n");
    assert((await Deno.lstat(path.join(ws.root, "a.txt"))).isSymlink);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

/**
 * A predicate for openBeneath calls that accepts the check, right before install, that the parent `dir` still is
 * the pinned directory: the second open of `dir` (the first pinned it).
 */
function recheckOf(dir: string): (...args: unknown[]) => boolean {
  let opens = 0;
  return (_from, rel) => rel === dir && ++opens === 2;
}

Deno.test("a parent directory swapped for a symlink to outside at any point of the commit is never acted through", async (t) => {
  // Where the swap happens, and what the commit then does. With the fd backends every act goes through the
  // directory fd pinned at the start, so it lands in the directory that was moved away (inside the workspace),
  // never outside.
  const cases: { name: string; op: keyof FsOps; when: () => (...args: unknown[]) => boolean; installed: boolean }[] = [
    { name: "before the temp file is created", op: "create", when: () => () => true, installed: false },
    {
      name: "before the directory is checked again at install",
      op: "openBeneath",
      when: () => recheckOf("dir"),
      installed: false,
    },
    { name: "after that check, before the backup link", op: "link", when: () => () => true, installed: true },
  ];
  for (const backend of BACKENDS) {
    for (const c of cases) {
      await t.step(`${backend.name}: ${c.name}`, async () => {
        using ws = await workspace(backend);
        const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
        try {
          await Deno.mkdir(path.join(ws.root, "dir"));
          await Deno.writeTextFile(path.join(ws.root, "dir", "a.txt"), "a\n");
          await Deno.writeTextFile(path.join(outside, "a.txt"), "a\n");
          const outsideBefore = await snapshot(outside);
          const plan = await planPatch(
            ws,
            parsePatch("*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-a\n+pwned\n*** End Patch"),
          );
          const dir = path.join(ws.root, "dir");
          const fs = interrupted(c.op, c.when(), () => {
            Deno.renameSync(dir, `${dir}-moved-away`);
            Deno.symlinkSync(outside, dir);
          });
          const fds = openFds(ws.root).length;
          const outcome = await commitChanges(ws, plan.changes, fs).then(() => null, (error) => error);
          assertEquals(openFds(ws.root).length, fds, "fds left open");
          assertEquals(treeDifferences(await snapshot(outside), outsideBefore), [], "the outside tree changed");
          assert((await Deno.lstat(path.join(ws.root, "dir"))).isSymlink, "the swap did not happen");
          const movedAway = path.join(ws.root, "dir-moved-away");
          const left = [...Deno.readDirSync(movedAway)].map((e) => e.name).filter((name) => name !== "a.txt");
          if (c.installed) {
            assertEquals([outcome, left], [null, []]);
            assertEquals(await Deno.readTextFile(path.join(movedAway, "a.txt")), "pwned\n");
            return;
          }
          assert(outcome instanceof ToolError && outcome.code === "PATH_OUTSIDE_WORKSPACE", String(outcome));
          assertEquals(await Deno.readTextFile(path.join(movedAway, "a.txt")), "a\n");
          assertEquals(left, [], "temp or backup file left");
        } finally {
          await Deno.remove(ws.root, { recursive: true });
          await Deno.remove(outside, { recursive: true });
        }
      });
    }
  }
});

Deno.test("a parent directory replaced by another real directory before install is a PATCH_CONFLICT", async (t) => {
  for (const backend of BACKENDS) {
    await t.step(backend.name, async () => {
      using ws = await workspace(backend);
      try {
        await Deno.mkdir(path.join(ws.root, "dir"));
        await Deno.writeTextFile(path.join(ws.root, "dir", "a.txt"), "a\n");
        const plan = await planPatch(
          ws,
          parsePatch("*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-a\n+A\n*** End Patch"),
        );
        const dir = path.join(ws.root, "dir");
        const replacing = interrupted("openBeneath", recheckOf("dir"), () => {
          Deno.renameSync(dir, `${dir}-old`);
          Deno.mkdirSync(dir);
          Deno.writeTextFileSync(path.join(dir, "a.txt"), "a\n");
        });
        const error = await assertRejects(() => commitChanges(ws, plan.changes, replacing));
        assert(error instanceof ToolError && error.code === "PATCH_CONFLICT", String(error));
        assert(error.message.includes("a directory above dir/a.txt was replaced"), error.message);
        for (const name of ["dir", "dir-old"]) {
          const entries = [...Deno.readDirSync(path.join(ws.root, name))].map((e) => e.name).sort();
          assertEquals(entries, ["a.txt"], name);
          assertEquals(await Deno.readTextFile(path.join(ws.root, name, "a.txt")), "a\n", name);
        }
      } finally {
        await Deno.remove(ws.root, { recursive: true });
      }
    });
  }
});

Deno.test("a file that appears at a new file's path right before install is kept, as a PATCH_CONFLICT", async () => {
  const ws = await workspace();
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    const plan = await planPatch(
      ws,
      parsePatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: n.txt\n+mine\n*** End Patch"),
    );
    const intruding: FsOps = {
      ...HANDLE_OPS,
      link(dir, from, to) {
        if (to === "n.txt") Deno.writeTextFileSync(path.join(ws.root, "n.txt"), "theirs\n"); // after the baseline check
        HANDLE_OPS.link(dir, from, to);
      },
    };
    const error = await assertRejects(() => commitChanges(ws, plan.changes, intruding));
    assert(error instanceof ToolError && error.code === "PATCH_CONFLICT", String(error));
    assertEquals(await Deno.readTextFile(path.join(ws.root, "n.txt")), "theirs\n");
    assertEquals(await Deno.readTextFile(path.join(ws.root, "a.txt")), "a\n");
    assertEquals([...Deno.readDirSync(ws.root)].map((e) => e.name).sort(), ["a.txt", "n.txt"]);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a file another process keeps locked ends the patch with TIMEOUT after the wait, nothing written", async (t) => {
  for (const backend of BACKENDS) {
    await t.step(backend.name, async () => {
      using ws = await workspace(backend);
      try {
        await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
        await Deno.writeTextFile(path.join(ws.root, "b.txt"), "b\n");
        const plan = await planPatch(
          ws,
          parsePatch(
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch",
          ),
        );
        // What `flock b.txt sleep infinity` in a command does: another open file description holds the lock.
        using holder = await Deno.open(path.join(ws.root, "b.txt"));
        holder.lockSync(true);
        const fds = openFds(ws.root).length;
        const short: FsOps = { ...HANDLE_OPS, lock: (file) => HANDLE_OPS.lock(file, 100) };
        const error = await assertRejects(() => commitChanges(ws, plan.changes, short));
        assert(error instanceof ToolError && error.code === "TIMEOUT", String(error));
        assert(error.message.startsWith("b.txt is locked (flock) by another process"), error.message);
        assert(error.hint.includes("flock FILE"), error.hint);
        assertEquals(openFds(ws.root).length, fds, "fds left open");
        assertEquals(
          [await Deno.readTextFile(path.join(ws.root, "a.txt")), await Deno.readTextFile(path.join(ws.root, "b.txt"))],
          ["a\n", "b\n"],
        );
        assertEquals([...Deno.readDirSync(ws.root)].map((entry) => entry.name).sort(), ["a.txt", "b.txt"]);
        holder.unlockSync();
        await commitChanges(ws, plan.changes);
        assertEquals(await Deno.readTextFile(path.join(ws.root, "b.txt")), "B\n");
      } finally {
        await Deno.remove(ws.root, { recursive: true });
      }
    });
  }
});
