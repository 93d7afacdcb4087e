import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { snapshot, treeDifferences } from "../testing/tree_snapshot.ts";
import { ToolError } from "../errors.ts";
import { O } from "../os/libc.ts";
import { openWorkspace, type Workspace } from "../workspace/confine.ts";
import { applyPatch } from "./apply.ts";
import { commitChanges, FS_AT, type FsOps } from "./commit.ts";
import { matchPatch } from "./match.ts";
import { parsePatch } from "./parse.ts";

const PATCH = `*** Begin Patch
*** Update File: a.txt
@@
-a
+A
*** Add File: new/dir/n.txt
+n
*** Delete File: c.txt
*** Update File: d.sh
*** Move to: bin/e.sh
@@
-d
+D
*** End Patch`;

async function layout(root: string): Promise<void> {
  for await (const entry of Deno.readDir(root)) await Deno.remove(path.join(root, entry.name), { recursive: true });
  await Deno.writeTextFile(path.join(root, "a.txt"), "a\n");
  await Deno.writeTextFile(path.join(root, "c.txt"), "c\n");
  await Deno.writeTextFile(path.join(root, "d.sh"), "d\n");
  await Deno.chmod(path.join(root, "a.txt"), 0o600);
  await Deno.chmod(path.join(root, "d.sh"), 0o755);
}

async function workspace(): Promise<Workspace> {
  return await openWorkspace(await Deno.makeTempDir({ prefix: "workcell-commit-" }));
}

/** Open fds of this process: every commit, failed or not, must close what it opened. */
/**
 * This process's fds that point into `root` (other test files run in the same process under --parallel, so
 * the count of all fds moves on its own).
 */
function openFds(root: string): number {
  return [...Deno.readDirSync("/proc/self/fd")].filter((entry) => {
    try {
      return Deno.readLinkSync(`/proc/self/fd/${entry.name}`).startsWith(root);
    } catch {
      return false;
    }
  }).length;
}

/**
 * FS_AT whose `failAt`-th call (1-based, over all operations) fails (a throw, or a rejection for an async
 * call); `calls` records the names called.
 */
function faulty(failAt: number, calls: string[] = []): FsOps {
  let n = 0;
  const ops = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(FS_AT)) {
    ops[name] = (...args: unknown[]) => {
      calls.push(name);
      if (++n === failAt) {
        const fault = new Error(`injected fault in ${name} (step ${n})`);
        if (fn.constructor.name === "AsyncFunction") return Promise.reject(fault);
        throw fault;
      }
      return (fn as (...a: unknown[]) => unknown)(...args);
    };
  }
  return ops as unknown as FsOps;
}

Deno.test("a fault at any single file-system step leaves the tree as before or fully patched, and no fd open", async () => {
  const ws = await workspace();
  try {
    await layout(ws.root);
    const before = await snapshot(ws.root);
    const calls: string[] = [];
    await applyPatch(ws, PATCH, faulty(0, calls));
    const after = await snapshot(ws.root);
    assert(calls.length > 30, `only ${calls.length} operations`);
    for (const name of Object.keys(FS_AT)) assert(calls.includes(name), `${name} is never called`);
    for (let step = 1; step <= calls.length; step++) {
      await layout(ws.root);
      let failed: unknown = null;
      const run: string[] = [];
      const fds = openFds(ws.root);
      await applyPatch(ws, PATCH, faulty(step, run)).catch((error) => failed = error);
      assertEquals(openFds(ws.root), fds, `step ${step} (${run[step - 1]}): fds left open`);
      const tree = await snapshot(ws.root);
      if (failed === null) {
        // Only the final clean-up of backups may fail after the point of no return; a stray backup is then left.
        assertEquals(run[step - 1], "unlinkAt", `step ${step} (${run[step - 1]}) was swallowed`);
        const problems = treeDifferences(tree, after).filter((p) => !/^unexpected .*\.bak$/.test(p));
        assertEquals(problems, [], `step ${step}: partial result`);
      } else {
        assert(failed instanceof ToolError, `step ${step}: ${failed}`);
        assertEquals(failed.code, "PATCH_WRITE_FAILED", failed.message);
        assertEquals(treeDifferences(tree, before), [], `step ${step} (${run[step - 1]}): tree changed`);
      }
    }
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a file changed between match and install is a PATCH_CONFLICT and nothing is written", async () => {
  const ws = await workspace();
  try {
    await layout(ws.root);
    const plan = await matchPatch(ws, parsePatch(PATCH));
    await Deno.writeTextFile(path.join(ws.root, "d.sh"), "d changed\n");
    const before = await snapshot(ws.root);
    const error = await assertRejects(() => commitChanges(ws, plan.changes));
    assert(error instanceof ToolError && error.code === "PATCH_CONFLICT", String(error));
    assert(error.message.includes("d.sh"), error.message);
    assertEquals(treeDifferences(await snapshot(ws.root), before), []);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a target swapped for a symlink to outside after matching is never written through", async () => {
  const ws = await workspace();
  const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    await Deno.writeTextFile(path.join(outside, "secret.txt"), "a\n");
    const plan = await matchPatch(
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

/** FS_AT that runs `act` once, right before the first call of `op` that `when` accepts. */
function interrupted(op: keyof FsOps, when: (...args: unknown[]) => boolean, act: () => void): FsOps {
  let done = false;
  const call = (...args: unknown[]) => {
    if (!done && when(...args)) {
      done = true;
      act();
    }
    return (FS_AT[op] as (...a: unknown[]) => unknown)(...args);
  };
  return { ...FS_AT, [op]: call };
}

/** Whether an openBeneath call is the check, right before install, that a parent still is the pinned directory. */
const isRecheck = (_dirFd: unknown, _relative: unknown, flags: unknown) => ((flags as number) & O.PATH) !== 0;

Deno.test("a parent directory swapped for a symlink to outside at any point of the commit is never acted through", async (t) => {
  // Where the swap happens, and what the commit then does. Every act goes through the directory fd pinned
  // at the start, so it lands in the directory that was moved away (inside the workspace), never outside.
  const cases: { name: string; op: keyof FsOps; when: (...args: unknown[]) => boolean; installed: boolean }[] = [
    {
      name: "before the temp file is created",
      op: "openAt",
      when: (_dir, _name, flags) => ((flags as number) & O.CREAT) !== 0,
      installed: false,
    },
    {
      name: "before the directory is checked again at install",
      op: "openBeneath",
      when: isRecheck,
      installed: false,
    },
    { name: "after that check, before the backup link", op: "linkAt", when: () => true, installed: true },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const ws = await workspace();
      const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
      try {
        await Deno.mkdir(path.join(ws.root, "dir"));
        await Deno.writeTextFile(path.join(ws.root, "dir", "a.txt"), "a\n");
        await Deno.writeTextFile(path.join(outside, "a.txt"), "a\n");
        const outsideBefore = await snapshot(outside);
        const plan = await matchPatch(
          ws,
          parsePatch("*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-a\n+pwned\n*** End Patch"),
        );
        const dir = path.join(ws.root, "dir");
        const fs = interrupted(c.op, c.when, () => {
          Deno.renameSync(dir, `${dir}-moved-away`);
          Deno.symlinkSync(outside, dir);
        });
        const fds = openFds(ws.root);
        const outcome = await commitChanges(ws, plan.changes, fs).then(() => null, (error) => error);
        assertEquals(openFds(ws.root), fds, "fds left open");
        assertEquals(treeDifferences(await snapshot(outside), outsideBefore), [], "the outside tree changed");
        assert((await Deno.lstat(path.join(ws.root, "dir"))).isSymlink, "the swap did not happen");
        const movedAway = path.join(ws.root, "dir-moved-away");
        assertEquals([...Deno.readDirSync(movedAway)].map((e) => e.name), ["a.txt"], "temp or backup file left");
        if (c.installed) {
          assertEquals(outcome, null);
          assertEquals(await Deno.readTextFile(path.join(movedAway, "a.txt")), "pwned\n");
        } else {
          assert(outcome instanceof ToolError && outcome.code === "PATH_OUTSIDE_WORKSPACE", String(outcome));
          assertEquals(await Deno.readTextFile(path.join(movedAway, "a.txt")), "a\n");
        }
      } finally {
        await Deno.remove(ws.root, { recursive: true });
        await Deno.remove(outside, { recursive: true });
      }
    });
  }
});

Deno.test("a parent directory replaced by another real directory before install is a PATCH_CONFLICT", async () => {
  const ws = await workspace();
  try {
    await Deno.mkdir(path.join(ws.root, "dir"));
    await Deno.writeTextFile(path.join(ws.root, "dir", "a.txt"), "a\n");
    const plan = await matchPatch(
      ws,
      parsePatch("*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-a\n+A\n*** End Patch"),
    );
    const dir = path.join(ws.root, "dir");
    const replacing = interrupted("openBeneath", isRecheck, () => {
      Deno.renameSync(dir, `${dir}-old`);
      Deno.mkdirSync(dir);
      Deno.writeTextFileSync(path.join(dir, "a.txt"), "a\n");
    });
    const error = await assertRejects(() => commitChanges(ws, plan.changes, replacing));
    assert(error instanceof ToolError && error.code === "PATCH_CONFLICT", String(error));
    assert(error.message.includes("a directory above dir/a.txt was replaced"), error.message);
    for (const name of ["dir", "dir-old"]) {
      assertEquals([...Deno.readDirSync(path.join(ws.root, name))].map((e) => e.name), ["a.txt"], name);
      assertEquals(await Deno.readTextFile(path.join(ws.root, name, "a.txt")), "a\n", name);
    }
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a full file system (tiny tmpfs) mid-patch rolls back the files already installed", async () => {
  const ws = await workspace();
  const small = path.join(ws.root, "small");
  await Deno.mkdir(small);
  const mounted = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small],
    stderr: "null",
  })
    .output().then((r) => r.success).catch(() => false);
  try {
    if (!mounted) {
      console.warn("mount -t tmpfs is not permitted here; real disk-full fault not exercised");
      return;
    }
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    await Deno.writeTextFile(path.join(small, "s.txt"), "s\n");
    const big = Array.from({ length: 4000 }, (_, i) => `+line ${i} ${"x".repeat(40)}`).join("\n");
    const patch =
      `*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: small/s.txt\n@@\n-s\n${big}\n*** End Patch`;
    const before = await snapshot(ws.root);
    const error = await assertRejects(() => applyPatch(ws, patch));
    assert(error instanceof ToolError && error.code === "PATCH_WRITE_FAILED", String(error));
    assert(/space/i.test(error.message), error.message);
    assertEquals(treeDifferences(await snapshot(ws.root), before), []);
  } finally {
    if (mounted) await new Deno.Command("umount", { args: [small] }).output();
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a file that appears at a new file's path right before install is kept, as a PATCH_CONFLICT", async () => {
  const ws = await workspace();
  try {
    await Deno.writeTextFile(path.join(ws.root, "a.txt"), "a\n");
    const plan = await matchPatch(
      ws,
      parsePatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: n.txt\n+mine\n*** End Patch"),
    );
    const intruding: FsOps = {
      ...FS_AT,
      linkAt(fromDir, from, toDir, to) {
        if (to === "n.txt") Deno.writeTextFileSync(path.join(ws.root, "n.txt"), "theirs\n"); // after the baseline check
        FS_AT.linkAt(fromDir, from, toDir, to);
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
