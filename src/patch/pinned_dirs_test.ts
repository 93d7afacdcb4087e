import * as path from "node:path";
import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { openFds } from "../../testing/fd_identity.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace, type Workspace } from "../workspace/workspace.ts";
import { HANDLE_OPS } from "./fs_ops.ts";
import { UndoJournal } from "./journal.ts";
import { PinnedDirs } from "./pinned_dirs.ts";

async function withWorkspace(fn: (ws: Workspace) => Promise<void>): Promise<void> {
  using ws = openWorkspace(await Deno.makeTempDir({ prefix: "workcell-pin-" }));
  try {
    await fn(ws);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
}

Deno.test("pin creates missing directories only when asked, journals each, and marks their parents for fsync", async () => {
  await withWorkspace(async (ws) => {
    await Deno.mkdir(path.join(ws.root, "a"));
    const journal = new UndoJournal();
    const fds = openFds(ws.root).length; // the workspace's own root fd among them
    {
      using dirs = new PinnedDirs(ws, HANDLE_OPS, journal);
      assertThrows(() => dirs.pin("a/b/c", false));
      const c = dirs.pin("a/b/c", true);
      assertEquals(c.rel, "a/b/c");
      assertEquals(dirs.pin("a/b/c", true), c, "pinned once per commit");
      assertEquals(dirs.parentOf("a/b/c/file.txt"), c);
      assertEquals([...dirs.touched].map((d) => d.rel), ["a", "a/b"]);
      assert((await Deno.stat(path.join(ws.root, "a/b/c"))).isDirectory);
      assertEquals(journal.rollback(HANDLE_OPS), []);
    }
    assertEquals([...Deno.readDirSync(path.join(ws.root, "a"))], [], "the rollback removed what pin created");
    assertEquals(openFds(ws.root).length, fds, "dispose closed every pinned directory");
  });
});

Deno.test("pin never follows a symlink on the way", async () => {
  await withWorkspace(async (ws) => {
    const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
    try {
      await Deno.symlink(outside, path.join(ws.root, "link"));
      using dirs = new PinnedDirs(ws, HANDLE_OPS, new UndoJournal());
      assertThrows(() => dirs.pin("link/sub", true));
      assertEquals([...Deno.readDirSync(outside)], [], "nothing was created outside");
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("recheck: the same directory passes, another is PATCH_CONFLICT, a symlink PATH_OUTSIDE_WORKSPACE", async () => {
  await withWorkspace(async (ws) => {
    const dir = path.join(ws.root, "d");
    await Deno.mkdir(dir);
    using dirs = new PinnedDirs(ws, HANDLE_OPS, new UndoJournal());
    const pinned = dirs.pin("d", false);
    dirs.recheck(pinned, "d/a.txt");
    await Deno.rename(dir, `${dir}-old`);
    await Deno.mkdir(dir);
    const replaced = assertThrows(() => dirs.recheck(pinned, "d/a.txt"));
    assert(replaced instanceof ToolError && replaced.code === "PATCH_CONFLICT", String(replaced));
    await Deno.remove(dir);
    await Deno.symlink(`${dir}-old`, dir);
    const swapped = assertThrows(() => dirs.recheck(pinned, "d/a.txt"));
    assert(swapped instanceof ToolError && swapped.code === "PATH_OUTSIDE_WORKSPACE", String(swapped));
    await Deno.remove(dir);
    const vanished = assertThrows(() => dirs.recheck(pinned, "d/a.txt"));
    assert(vanished instanceof ToolError && vanished.code === "PATCH_CONFLICT", String(vanished));
  });
});
