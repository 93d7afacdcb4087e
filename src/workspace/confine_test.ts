import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { ToolError } from "../errors.ts";
import {
  confine,
  inPinnedDirectory,
  openConfined,
  openReadable,
  openWorkspace,
  toRelative,
  type Workspace,
  WorkspaceError,
} from "./confine.ts";
import { readAllFd } from "../os/fs_at.ts";
import { closeFd } from "../os/fd.ts";

/** A workspace with an outside sibling, symlinks of every kind and a loop. */
async function fixture(): Promise<{ ws: Workspace; outside: string; cleanup(): Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "confine-" }));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await Deno.mkdir(path.join(root, "src", "deep"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(path.join(root, "src", "a.ts"), "a");
  await Deno.writeTextFile(path.join(outside, "secret.txt"), "secret");
  await Deno.symlink(path.join(outside, "secret.txt"), path.join(root, "file-out"));
  await Deno.symlink(outside, path.join(root, "dir-out"));
  await Deno.symlink("../outside", path.join(root, "rel-dir-out"));
  await Deno.symlink("file-out", path.join(root, "chain-1"));
  await Deno.symlink("chain-1", path.join(root, "chain-2"));
  await Deno.symlink("src/a.ts", path.join(root, "link-in"));
  await Deno.symlink("src", path.join(root, "dir-in"));
  await Deno.symlink("loop-b", path.join(root, "loop-a"));
  await Deno.symlink("loop-a", path.join(root, "loop-b"));
  await Deno.symlink(path.join(outside, "missing.txt"), path.join(root, "dangling-out"));
  await Deno.symlink("src/missing.txt", path.join(root, "dangling-in"));
  await Deno.symlink("/proc/self/root" + outside, path.join(root, "proc-root"));
  await Deno.symlink("/proc/self/cwd", path.join(root, "proc-cwd"));
  await Deno.symlink(root, path.join(base, "ws-alias"));
  const ws = await openWorkspace(root);
  return { ws, outside, cleanup: () => Deno.remove(base, { recursive: true }) };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await assertRejects(() => promise);
  assert(error instanceof ToolError, `expected ToolError, got ${error}`);
  return error.code;
}

const REFUSED: [string, string, { allowMissing?: boolean }?][] = [
  ["..", "PATH_OUTSIDE_WORKSPACE"],
  ["../outside/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["src/../../outside/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["src/deep/../../../outside", "PATH_OUTSIDE_WORKSPACE"],
  ["./../ws/../outside", "PATH_OUTSIDE_WORKSPACE"],
  ["/etc/passwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/", "PATH_OUTSIDE_WORKSPACE"],
  ["file-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["rel-dir-out/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["chain-2", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-root", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-root/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-cwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/proc/self/root/etc/passwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/proc/self/cwd/x", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out/new-file.txt", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dir-out/new/deeper.txt", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dangling-out", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dangling-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dangling-in", "INVALID_ARGUMENT", { allowMissing: true }],
  ["loop-a", "INVALID_ARGUMENT"],
  ["loop-a/x", "INVALID_ARGUMENT", { allowMissing: true }],
  ["src/a.ts/x", "NOT_A_DIRECTORY"],
  ["a\0b", "INVALID_ARGUMENT"],
  ["src/a.ts\0", "INVALID_ARGUMENT"],
  ["", "INVALID_ARGUMENT"],
  ["x".repeat(256), "INVALID_ARGUMENT"],
  [("d/").repeat(2100), "INVALID_ARGUMENT"],
  ["missing.txt", "NOT_FOUND"],
  ["src/missing/deeper.txt", "NOT_FOUND"],
];

Deno.test("confine refuses every attack in the table", async (t) => {
  const { ws, cleanup } = await fixture();
  try {
    for (const [input, code, options] of REFUSED) {
      await t.step(
        `${JSON.stringify(input.slice(0, 60))}${options?.allowMissing ? " (allowMissing)" : ""} -> ${code}`,
        async () => {
          assertEquals(await codeOf(confine(ws, input, options)), code);
        },
      );
    }
  } finally {
    await cleanup();
  }
});

Deno.test("confine accepts paths that stay inside, reporting workspace-relative / paths", async () => {
  const { ws, cleanup } = await fixture();
  try {
    assertEquals((await confine(ws, ".")).rel, ".");
    assertEquals((await confine(ws, "src/a.ts")).rel, "src/a.ts");
    assertEquals((await confine(ws, "./src//deep/../a.ts")).rel, "src/a.ts");
    assertEquals((await confine(ws, path.join(ws.root, "src", "a.ts"))).rel, "src/a.ts");
    assertEquals((await confine(ws, "link-in")).rel, "src/a.ts");
    assertEquals((await confine(ws, "dir-in/a.ts")).rel, "src/a.ts");
    const created = await confine(ws, "src/new/file.ts", { allowMissing: true });
    assertEquals(created, { abs: path.join(ws.root, "src", "new", "file.ts"), rel: "src/new/file.ts", exists: false });
    assertEquals((await confine(ws, "dir-in/new.ts", { allowMissing: true })).rel, "src/new.ts");
  } finally {
    await cleanup();
  }
});

Deno.test("absolute paths through a symlinked spelling of the root are accepted", async () => {
  const { ws, cleanup } = await fixture();
  try {
    const alias = path.join(path.dirname(ws.root), "ws-alias");
    const aliased = await openWorkspace(alias);
    assertEquals(aliased.root, ws.root);
    assertEquals((await confine(aliased, path.join(alias, "src", "a.ts"))).rel, "src/a.ts");
    assertEquals(await codeOf(confine(aliased, path.join(alias, "..", "outside"))), "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await cleanup();
  }
});

Deno.test("a directory swapped for an outside symlink is caught on the next confine", async () => {
  const { ws, outside, cleanup } = await fixture();
  try {
    assertEquals((await confine(ws, "src/deep/x.ts", { allowMissing: true })).rel, "src/deep/x.ts");
    await Deno.remove(path.join(ws.root, "src", "deep"), { recursive: true });
    await Deno.symlink(outside, path.join(ws.root, "src", "deep"));
    assertEquals(await codeOf(confine(ws, "src/deep/x.ts", { allowMissing: true })), "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await cleanup();
  }
});

Deno.test("openWorkspace refuses a missing path and a file", async () => {
  const { ws, cleanup } = await fixture();
  try {
    assert(await assertRejects(() => openWorkspace(path.join(ws.root, "nope"))) instanceof WorkspaceError);
    assert(await assertRejects(() => openWorkspace(path.join(ws.root, "src", "a.ts"))) instanceof WorkspaceError);
    assertEquals(toRelative(ws, ws.root), ".");
  } finally {
    await cleanup();
  }
});

Deno.test("openConfined: a workspace directory removed and made again is reported, not silently missing", async () => {
  const root = await Deno.makeTempDir({ prefix: "workcell-replaced-" });
  try {
    const ws = await openWorkspace(root);
    await Deno.remove(root);
    await Deno.mkdir(root);
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    const error = await assertRejects(() => openConfined(ws, "a.txt"));
    assert(error instanceof ToolError && /removed or replaced/.test(error.message), String(error));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("openConfined pins what confine approved; openReadable refuses directories and FIFOs before reading", async () => {
  const { ws, cleanup } = await fixture();
  try {
    await Deno.writeTextFile(path.join(ws.root, "src", "a.txt"), "a\n");
    const opened = await openConfined(ws, "src/a.txt");
    assertEquals([opened.target.rel, opened.stat.kind], ["src/a.txt", "file"]);
    closeFd(opened.fd);
    const file = await openReadable(ws, "src/a.txt");
    assertEquals(new TextDecoder().decode(await readAllFd(file.fd)), "a\n");
    closeFd(file.fd);
    const dir = await assertRejects(() => openReadable(ws, "src"));
    assert(dir instanceof ToolError && dir.code === "NOT_A_FILE", String(dir));
    await new Deno.Command("mkfifo", { args: [path.join(ws.root, "fifo")] }).output();
    const fifo = await assertRejects(() => openReadable(ws, "fifo")); // would block if it were opened for reading
    assert(fifo instanceof ToolError && fifo.code === "NOT_A_FILE", String(fifo));
  } finally {
    await cleanup();
  }
});

Deno.test("inPinnedDirectory gives a child the pinned directory even after the path is swapped", async () => {
  const { ws, outside, cleanup } = await fixture();
  try {
    const dir = path.join(ws.root, "src");
    const cwd = await inPinnedDirectory(ws, dir, async (pinned) => {
      await Deno.rename(dir, path.join(ws.root, "moved"));
      await Deno.symlink(outside, dir);
      const out = await new Deno.Command("pwd", { args: ["-P"], cwd: pinned }).output();
      return new TextDecoder().decode(out.stdout).trim();
    });
    assertEquals(cwd, path.join(ws.root, "moved"));
    const error = await assertRejects(() => inPinnedDirectory(ws, dir, () => Promise.resolve()));
    assert(error instanceof ToolError && error.code === "INVALID_ARGUMENT", String(error));
  } finally {
    await cleanup();
  }
});
