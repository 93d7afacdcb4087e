import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { snapshot, treeDifferences } from "../../tests/patch_scenarios.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace, type Workspace } from "../workspace/confine.ts";
import { applyPatch } from "./apply.ts";
import { commitChanges, DENO_FS, type FsOps } from "./commit.ts";
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

/** DENO_FS whose `failAt`-th call (1-based, over all operations) throws; `calls` records the names called. */
function faulty(failAt: number, calls: string[] = []): FsOps {
  let n = 0;
  const ops = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(DENO_FS)) {
    ops[name] = (...args: unknown[]) => {
      calls.push(name);
      if (++n === failAt) return Promise.reject(new Error(`injected fault in ${name} (step ${n})`));
      return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return ops as unknown as FsOps;
}

Deno.test("a fault at any single file-system step leaves the tree as before or fully patched", async () => {
  const ws = await workspace();
  try {
    await layout(ws.root);
    const before = await snapshot(ws.root);
    const calls: string[] = [];
    await applyPatch(ws, PATCH, faulty(0, calls));
    const after = await snapshot(ws.root);
    assert(calls.length > 10, `only ${calls.length} operations`);
    for (let step = 1; step <= calls.length; step++) {
      await layout(ws.root);
      let failed: unknown = null;
      const run: string[] = [];
      await applyPatch(ws, PATCH, faulty(step, run)).catch((error) => failed = error);
      const tree = await snapshot(ws.root);
      if (failed === null) {
        // Only the final clean-up of backups may fail after the point of no return; a stray backup is then left.
        assertEquals(run[step - 1], "remove", `step ${step} (${run[step - 1]}) was swallowed`);
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

Deno.test("a parent directory swapped for a symlink to outside after matching is refused", async () => {
  const ws = await workspace();
  const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
  try {
    await Deno.mkdir(path.join(ws.root, "dir"));
    await Deno.writeTextFile(path.join(ws.root, "dir", "a.txt"), "a\n");
    await Deno.writeTextFile(path.join(outside, "a.txt"), "a\n");
    const plan = await matchPatch(
      ws,
      parsePatch("*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-a\n+pwned\n*** End Patch"),
    );
    // Swap after the temp files are written, right before install: the rename must not follow the new link.
    const swapping: FsOps = {
      ...DENO_FS,
      async realPath(target) {
        if (target === path.join(ws.root, "dir") && !(await Deno.lstat(target)).isSymlink) {
          await Deno.rename(target, path.join(ws.root, "moved-away"));
          await Deno.symlink(outside, target);
        }
        return await DENO_FS.realPath(target);
      },
    };
    const error = await assertRejects(() => commitChanges(ws, plan.changes, swapping));
    assert(error instanceof ToolError && error.code === "PATH_OUTSIDE_WORKSPACE", String(error));
    assertEquals(await Deno.readTextFile(path.join(outside, "a.txt")), "a\n");
    assertEquals([...Deno.readDirSync(outside)].map((e) => e.name), ["a.txt"], "no temp file left outside");
    // The temp file stays in the directory that was moved away (it is reached by path, not by a directory fd).
    assertEquals(await Deno.readTextFile(path.join(ws.root, "moved-away", "a.txt")), "a\n");
  } finally {
    await Deno.remove(ws.root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
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
      ...DENO_FS,
      async link(from, to) {
        if (to.endsWith("n.txt")) await Deno.writeTextFile(to, "theirs\n"); // after the baseline check
        await DENO_FS.link(from, to);
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
