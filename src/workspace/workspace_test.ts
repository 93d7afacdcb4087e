/**
 * Workspace.open and the handles it gives, against both backends: the same
 * refusals, the same pinning of what the check approved, and what each
 * backend does when the path is swapped after the open.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertThrows } from "../../testing/assert.ts";
import { codeOf, confineFixture, REFUSED } from "../../testing/confine_fixture.ts";
import { ToolError } from "../errors.ts";
import { FD_BACKEND } from "./fd_backend.ts";
import { POSIX_FD_BACKEND } from "./posix_fd_backend.ts";
import { chosenBackend, openWorkspace, WorkspaceError } from "./workspace.ts";
import { TEST_BACKENDS } from "../../testing/backend.ts";
import { spawnChild } from "../os/spawn.ts";
import { closeFd, makePipe, reap } from "../os/fd.ts";
import { libc } from "../os/libc.ts";

const BACKENDS = TEST_BACKENDS;

Deno.test("Workspace.open refuses every attack in the table, with either backend", async (t) => {
  const { root, cleanup } = await confineFixture();
  try {
    for (const backend of BACKENDS) {
      using ws = openWorkspace(root, backend);
      for (const [input, code, options] of REFUSED) {
        const name = `${backend.name}: ${JSON.stringify(input.slice(0, 60))}${
          options?.allowMissing ? " (allowMissing)" : ""
        }`;
        await t.step(`${name} -> ${code}`, () => {
          assertEquals(codeOf(() => ws.open(input, { expect: "any", ...options })), code);
        });
      }
    }
  } finally {
    await cleanup();
  }
});

Deno.test("Workspace.open pins what the check approved; expect refuses the wrong kind before any read", async () => {
  const { root, cleanup } = await confineFixture();
  try {
    await new Deno.Command("mkfifo", { args: [path.join(root, "fifo")] }).output();
    for (const backend of BACKENDS) {
      using ws = openWorkspace(root, backend);
      {
        using link = ws.open("link-in", { expect: "file" });
        assertEquals([link.rel, link.abs, link.stat.kind, link.stat.size], ["src/a.ts", `${root}/src/a.ts`, "file", 1]);
        assertEquals(new TextDecoder().decode(await link.readAll()), "a");
        const one = new Uint8Array(4);
        assertEquals(await link.read(one, 0), 1);
      }
      const dir = codeOf(() => ws.open("src", { expect: "file" }));
      const fifo = codeOf(() => ws.open("fifo", { expect: "file" })); // would block if it were opened for reading
      const file = codeOf(() => ws.open("src/a.ts", { expect: "dir" }));
      assertEquals([dir, fifo, file], ["NOT_A_FILE", "NOT_A_FILE", "NOT_A_DIRECTORY"], backend.name);
      using special = ws.open("fifo", { expect: "any" });
      assertEquals(special.stat.kind, "other");
      const read = await assertRejects(() => special.readAll());
      assert(read instanceof ToolError && read.code === "NOT_A_FILE", String(read));
      using missing = ws.open("src/new/x.ts", { expect: "any", allowMissing: true });
      assertEquals([missing.exists, missing.rel], [false, "src/new/x.ts"]);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("a directory handle lists, stats and opens entries without following a symlink", async () => {
  const { root, cleanup } = await confineFixture();
  try {
    for (const backend of BACKENDS) {
      using ws = openWorkspace(root, backend);
      using top = ws.open(".", { expect: "dir" });
      const names = top.entries().map((entry) => `${new TextDecoder().decode(entry.name)}:${entry.kind}`).sort();
      assert(names.includes("dir-out:symlink") && names.includes("src:dir"), names.join());
      assertEquals(top.statEntry("dir-out").kind, "symlink");
      assertThrows(() => top.openEntry("dir-out", "dir"));
      assertThrows(() => top.openBeneath("dir-in/a.ts", "any"));
      using src = top.openEntry("src", "dir");
      assertEquals([src.rel, src.abs], ["src", `${root}/src`]);
      using deep = top.openBeneath("src/deep", "dir");
      assertEquals(deep.rel, "src/deep");
      assert(deep.isCurrent());
    }
  } finally {
    await cleanup();
  }
});

Deno.test("revalidate: the same directory passes; swapped for a symlink it is PATH_OUTSIDE_WORKSPACE", async () => {
  const { root, outside, cleanup } = await confineFixture();
  try {
    for (const backend of BACKENDS) {
      using ws = openWorkspace(root, backend);
      using src = ws.open("src", { expect: "dir" });
      src.revalidate();
      await Deno.rename(path.join(root, "src"), path.join(root, "moved"));
      await Deno.symlink(outside, path.join(root, "src"));
      const error = assertThrows(() => src.revalidate());
      assert(error instanceof ToolError && error.code === "PATH_OUTSIDE_WORKSPACE", String(error));
      await Deno.remove(path.join(root, "src"));
      await Deno.rename(path.join(root, "moved"), path.join(root, "src"));
      src.revalidate(); // the very directory is back
    }
  } finally {
    await cleanup();
  }
});

/** What `pwd -P` prints when spawned (as every child of the server is) with the working directory `cwd`. */
async function pwdIn(cwd: string): Promise<string> {
  const [inR, inW] = makePipe();
  const [outR, outW] = makePipe();
  const pid = spawnChild({
    argv: ["pwd", "-P"],
    env: { PATH: "/usr/bin:/bin" },
    cwd,
    stdio: { stdin: inR, stdout: outW, stderr: outW },
  });
  for (const fd of [inR, inW, outW]) closeFd(fd);
  const buffer = new Uint8Array(4096);
  const n = Number(await libc().read_wait(outR, buffer, BigInt(buffer.length)));
  closeFd(outR);
  while (reap(pid) === null) await new Promise((resolve) => setTimeout(resolve, 2));
  return new TextDecoder().decode(buffer.subarray(0, Math.max(n, 0))).trim();
}

Deno.test("a child's working directory stays the pinned directory when its path is swapped for a symlink", async () => {
  const { root, outside, cleanup } = await confineFixture();
  try {
    for (const backend of BACKENDS) {
      using ws = openWorkspace(root, backend);
      const dir = path.join(root, "src");
      using src = ws.open("src", { expect: "dir" });
      const cwd = src.childCwd();
      await Deno.rename(dir, path.join(root, "moved"));
      await Deno.symlink(outside, dir);
      assertEquals(await pwdIn(cwd), path.join(root, "moved"), backend.name);
      await Deno.remove(dir);
      await Deno.rename(path.join(root, "moved"), dir);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("a workspace directory removed and made again is reported, not silently missing", async () => {
  for (const backend of BACKENDS) {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-replaced-" }));
    try {
      using ws = openWorkspace(root, backend);
      await Deno.remove(root);
      await Deno.mkdir(root);
      await Deno.writeTextFile(`${root}/a.txt`, "a\n");
      const error = assertThrows(() => ws.open("a.txt", { expect: "file" }));
      assert(error instanceof ToolError && /removed or replaced/.test(error.message), `${backend.name}: ${error}`);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
});

Deno.test("openWorkspace refuses a missing path and a file; WORKCELL_FILE_BACKEND names posix-fd or nothing", async () => {
  const { root, cleanup } = await confineFixture();
  try {
    assert(assertThrows(() => openWorkspace(path.join(root, "nope"))) instanceof WorkspaceError);
    assert(assertThrows(() => openWorkspace(path.join(root, "src", "a.ts"))) instanceof WorkspaceError);
    assertEquals(
      ["", "posix-fd"].map((name) => chosenBackend(name, "linux")),
      [FD_BACKEND, POSIX_FD_BACKEND],
    );
    assertEquals(chosenBackend(undefined, "linux"), FD_BACKEND);
    assertEquals(
      [chosenBackend(undefined, "darwin"), chosenBackend("posix-fd", "darwin")],
      [POSIX_FD_BACKEND, POSIX_FD_BACKEND],
      "macOS has the POSIX fd backend by default",
    );
    assert(assertThrows(() => chosenBackend("ntfs")) instanceof WorkspaceError);
    assert(assertThrows(() => chosenBackend("portable")) instanceof WorkspaceError, "the portable backend is gone");
    assert(assertThrows(() => chosenBackend("fd", "darwin")) instanceof WorkspaceError);
  } finally {
    await cleanup();
  }
});
