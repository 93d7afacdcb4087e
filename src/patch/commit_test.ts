import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { FaultyFs } from "../../testing/patch_faults.ts";
import { openFds } from "../../testing/fd_identity.ts";
import { snapshot, treeDifferences } from "../../testing/tree_snapshot.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace, type Workspace } from "../workspace/workspace.ts";
import { FD_BACKEND } from "../workspace/fd_backend.ts";
import { TEST_BACKENDS } from "../../testing/backend.ts";
import { applyPatch } from "./apply.ts";
import { commitChanges, CommitTransaction, type Phase, PHASES } from "./commit.ts";
import { HANDLE_OPS } from "./fs_ops.ts";
import { type DurabilityOptions, SYNCFS_MIN_FILES } from "./durability.ts";
import { planPatch } from "./plan.ts";
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
  return openWorkspace(await Deno.makeTempDir({ prefix: "workcell-commit-" }));
}

/**
 * The two ways the stage makes its contents durable (durability.ts), each asked for whatever the patch's size. The
 * backend this run uses decides whether syncfs can be had: the POSIX fd one has none and fsyncs each file instead.
 */
const STRATEGIES: Record<string, DurabilityOptions> = {
  "an fsync per file": { syncfsMinFiles: Infinity },
  "one syncfs": { syncfsMinFiles: 1, release: "6.1.0", dirtyBytes: () => 0 },
};

/** Whether the workspace's backend can sync a whole file system (the fd one: syncfs). */
function syncsFileSystem(ws: Workspace): boolean {
  using root = ws.open(".", { expect: "dir" });
  return root.syncsFileSystem;
}

Deno.test("a fault at any single file-system step leaves the tree as before or fully patched, and no fd open", async () => {
  const ws = await workspace();
  try {
    const called = new Set<string>();
    for (const [strategy, durability] of Object.entries(STRATEGIES)) {
      await layout(ws.root);
      await faultEveryStep(ws, durability, strategy, called);
    }
    for (const name of Object.keys(HANDLE_OPS)) {
      const expected = name !== "syncFileSystem" || syncsFileSystem(ws);
      assertEquals(called.has(name), expected, `${name} is ${expected ? "never" : "still"} called`);
    }
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

/** Applies PATCH with a fault at each of its steps in turn (`called` gets the names of the calls made). */
async function faultEveryStep(ws: Workspace, durability: DurabilityOptions, strategy: string, called: Set<string>) {
  const before = await snapshot(ws.root);
  const clean = new FaultyFs();
  const calls = clean.calls;
  await applyPatch(ws, PATCH, clean.fs, durability);
  const after = await snapshot(ws.root);
  assert(calls.length > 30, `only ${calls.length} operations`);
  for (const name of calls) called.add(name);
  for (let step = 1; step <= calls.length; step++) {
    await layout(ws.root);
    let failed: unknown = null;
    const faults = new FaultyFs({ at: step });
    const run = faults.calls;
    const fds = openFds(ws.root).length;
    await applyPatch(ws, PATCH, faults.fs, durability).catch((error) => failed = error);
    assertEquals(openFds(ws.root).length, fds, `step ${step} (${run[step - 1]}): fds left open`);
    const tree = await snapshot(ws.root);
    if (failed === null) {
      // Only the final clean-up of backups may fail after the point of no return; a stray backup is then left.
      assertEquals(run[step - 1], "remove", `step ${step} (${run[step - 1]}) was swallowed`);
      const problems = treeDifferences(tree, after).filter((p) => !/^unexpected .*\.bak$/.test(p));
      assertEquals(problems, [], `step ${step}: partial result`);
    } else {
      assert(failed instanceof ToolError, `${strategy}, step ${step}: ${failed}`);
      assertEquals(failed.code, "PATCH_WRITE_FAILED", failed.message);
      assertEquals(treeDifferences(tree, before), [], `${strategy}, step ${step} (${run[step - 1]}): tree changed`);
    }
  }
}

/** Runs the phases of a commit of PATCH one by one, as commitChanges does; returns the error and what the rollback left. */
async function commitByPhase(ws: Workspace, faults: FaultyFs, durability: DurabilityOptions = {}) {
  const plan = await planPatch(ws, parsePatch(PATCH));
  using tx = new CommitTransaction(ws, plan.changes, faults.fs, durability);
  try {
    for (const phase of PHASES) {
      faults.phase = phase;
      await tx[phase]();
    }
  } catch (error) {
    faults.phase = "rollback";
    return { error, unrestored: await tx.rollback() };
  }
  faults.phase = "cleanup";
  tx.cleanup();
  return null;
}

/** What a fault in each phase is reported as doing. */
const DOING: Record<Phase, RegExp> = {
  pin: /^preparing the directory of /,
  stage: /^writing the new content of /,
  lock: /^locking /,
  install: /^installing /,
  sync: /^syncing /,
};

Deno.test("each phase, faulted alone at each of its steps, is rolled back completely and names what it was doing", async () => {
  const ws = await workspace();
  try {
    for (const [strategy, durability] of Object.entries(STRATEGIES)) {
      await layout(ws.root);
      const before = await snapshot(ws.root);
      const clean = new FaultyFs();
      assertEquals(await commitByPhase(ws, clean, durability), null);
      for (const phase of PHASES) {
        const steps = clean.counts.get(phase) ?? 0;
        assert(steps > 0, `${phase} makes no file-system call`);
        for (let step = 1; step <= steps; step++) {
          const where = `${strategy}: ${phase} step ${step}`;
          await layout(ws.root);
          const fds = openFds(ws.root).length;
          const outcome = await commitByPhase(ws, new FaultyFs({ at: step, phase }), durability);
          assert(outcome !== null, `${where}: the fault was swallowed`);
          assertEquals(outcome.unrestored, [], where);
          const message = (outcome.error as Error).message;
          assert(DOING[phase].test(message), `${where}: ${message}`);
          assertEquals(openFds(ws.root).length, fds, `${where}: fds left open`);
          assertEquals(treeDifferences(await snapshot(ws.root), before), [], `${where}: tree changed`);
        }
      }
    }
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a large patch's stage: one syncfs and no fsync per temp file on the fd backend, an fsync each on the POSIX one", async (t) => {
  const files = Array.from({ length: SYNCFS_MIN_FILES }, (_, i) => `${i % 2 === 0 ? "a" : "b"}/f${i}.txt`);
  const patch = `*** Begin Patch\n${files.map((file) => `*** Add File: ${file}\n+${file}\n`).join("")}*** End Patch`;
  const quiet: DurabilityOptions = { release: "6.1.0", dirtyBytes: () => 0 };
  for (const backend of TEST_BACKENDS) {
    await t.step(backend.name, async () => {
      using ws = openWorkspace(await Deno.makeTempDir({ prefix: "workcell-commit-" }), backend);
      try {
        const plan = await planPatch(ws, parsePatch(patch));
        const faults = new FaultyFs();
        using tx = new CommitTransaction(ws, plan.changes, faults.fs, quiet);
        await tx.pin();
        faults.phase = "stage";
        await tx.stage();
        const staged = faults.calls.slice(faults.calls.length - (faults.counts.get("stage") ?? 0));
        const count = (name: string) => staged.filter((call) => call === name).length;
        // Both directories lie on one file system: one syncfs where the backend has it.
        const syncfs = backend === FD_BACKEND ? 1 : 0;
        assertEquals([count("create"), count("sync"), count("syncFileSystem")], [
          files.length,
          files.length * (1 - syncfs),
          syncfs,
        ]);
        assertEquals(await tx.rollback(), []);
      } finally {
        await Deno.remove(ws.root, { recursive: true });
      }
    });
  }
});

Deno.test("a rollback after any phase, even after sync, gives back the tree as it was", async () => {
  const ws = await workspace();
  try {
    for (let done = 0; done <= PHASES.length; done++) {
      await layout(ws.root);
      const before = await snapshot(ws.root);
      const plan = await planPatch(ws, parsePatch(PATCH));
      const fds = openFds(ws.root).length;
      {
        using tx = new CommitTransaction(ws, plan.changes);
        for (const phase of PHASES.slice(0, done)) await tx[phase]();
        assertEquals(await tx.rollback(), [], `after ${PHASES[done - 1] ?? "nothing"}`);
      }
      assertEquals(openFds(ws.root).length, fds, `after ${PHASES[done - 1] ?? "nothing"}: fds left open`);
      assertEquals(treeDifferences(await snapshot(ws.root), before), [], `after ${PHASES[done - 1] ?? "nothing"}`);
    }
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

/** Expects `run` to be refused as out of order (and not to fail for another reason). */
async function outOfOrder(run: () => Promise<unknown> | void): Promise<void> {
  const error = await assertRejects(async () => await run());
  assert(/^a commit (phase \w+ cannot run|cannot)/.test((error as Error).message), String(error));
}

Deno.test("phases run only in order; after a failure only rollback; cleanup only after sync", async () => {
  const ws = await workspace();
  try {
    await layout(ws.root);
    const plan = await planPatch(ws, parsePatch(PATCH));
    {
      using tx = new CommitTransaction(ws, plan.changes);
      await outOfOrder(() => tx.stage());
      await tx.pin();
      await outOfOrder(() => tx.pin());
      await outOfOrder(() => tx.lock());
      await outOfOrder(() => tx.cleanup());
      assertEquals(await tx.rollback(), []);
      await outOfOrder(() => tx.rollback());
      await outOfOrder(() => tx.stage());
    }
    {
      const failing = new FaultyFs({ at: 1, phase: "stage" });
      using tx = new CommitTransaction(ws, plan.changes, failing.fs);
      failing.phase = "pin";
      await tx.pin();
      failing.phase = "stage";
      await assertRejects(() => tx.stage());
      await outOfOrder(() => tx.lock());
      assertEquals(await tx.rollback(), []);
    }
    assertEquals(await Deno.readTextFile(path.join(ws.root, "a.txt")), "a\n");
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("a file changed between match and install is a PATCH_CONFLICT and nothing is written", async () => {
  const ws = await workspace();
  try {
    await layout(ws.root);
    const plan = await planPatch(ws, parsePatch(PATCH));
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
