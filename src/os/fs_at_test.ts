import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertThrows } from "../../testing/assert.ts";
import { fdDirectory, fdOfDirectory, openAt, openBeneath, openDirectory, readAllFd } from "./fs_at.ts";
import { readDirFd } from "./fs_dir.ts";
import { statAt, statFd } from "./fs_stat.ts";
import { linkAt, lockFd, mkdirAt, renameAt, unlinkAt, writeAllFd } from "./fs_change.ts";
import { errnoOf } from "./os_error.ts";
import { ERRNO, O } from "./libc.ts";
import { closeFd } from "./fd.ts";

/** Linux-only: fs_at.ts's fd-relative calls are the fd backend's (openat2, statx, getdents64, /proc/self/fd), which macOS lacks. */
const LINUX_ONLY = Deno.build.os !== "linux";

async function tree(): Promise<{ base: string; root: string; rootFd: number }> {
  const base = await Deno.makeTempDir({ prefix: "workcell-fs-at-" });
  const root = path.join(base, "ws");
  await Deno.mkdir(path.join(root, "a", "b"), { recursive: true });
  await Deno.writeTextFile(path.join(root, "a", "b", "f.txt"), "inside\n");
  await Deno.writeTextFile(path.join(base, "secret.txt"), "outside\n");
  await Deno.symlink(base, path.join(root, "a", "out"));
  await Deno.symlink(path.join(base, "secret.txt"), path.join(root, "a", "secret-link"));
  await Deno.symlink("b", path.join(root, "a", "inside-link"));
  return { base, root, rootFd: openDirectory(root) };
}

Deno.test(
  "openBeneath opens real paths and refuses a symlink at any component, inside or out",
  { ignore: LINUX_ONLY },
  async () => {
    const { base, rootFd } = await tree();
    try {
      const fd = openBeneath(rootFd, "a/b/f.txt", O.RDONLY);
      assertEquals(new TextDecoder().decode(await readAllFd(fd)), "inside\n");
      assertEquals(statFd(fd).kind, "file");
      closeFd(fd);
      for (const attempt of ["a/out/secret.txt", "a/secret-link", "a/inside-link/f.txt", "a/inside-link"]) {
        const error = assertThrows(() => openBeneath(rootFd, attempt, O.RDONLY));
        assert([ERRNO.ELOOP, ERRNO.ENOTDIR].includes(errnoOf(error) as 40 | 20), `${attempt}: ${error}`);
      }
      assert(assertThrows(() => openBeneath(rootFd, "a/../..", O.RDONLY)) instanceof TypeError);
      assert(assertThrows(() => openBeneath(rootFd, "a/missing", O.RDONLY)) instanceof Deno.errors.NotFound);
      closeFd(rootFd);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
);

Deno.test("readAllFd reads exactly the content, whatever the size, and past a size the file does not report", {
  ignore: LINUX_ONLY,
}, async () => {
  const { base, root, rootFd } = await tree();
  try {
    for (const size of [0, 1, 4095, 4096, 4097, 100_000]) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => i % 251);
      await Deno.writeFile(path.join(root, "sized.bin"), bytes);
      const fd = openBeneath(rootFd, "sized.bin", O.RDONLY);
      assertEquals(await readAllFd(fd), bytes, `${size} bytes`);
      closeFd(fd);
    }
    // procfs reports size 0 for a file of several pages: the buffer has to grow.
    const proc = openDirectory("/proc/self");
    const fd = openAt(proc, "smaps", O.RDONLY);
    const text = new TextDecoder().decode(await readAllFd(fd));
    assert(text.length > 8192 && text.endsWith("\n"), `${text.length} bytes`);
    closeFd(fd);
    closeFd(proc);
    closeFd(rootFd);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("readDirFd and statAt see entries, never through links", { ignore: LINUX_ONLY }, async () => {
  const { base, rootFd } = await tree();
  try {
    const dir = openBeneath(rootFd, "a", O.RDONLY | O.DIRECTORY);
    const entries = readDirFd(dir).map((e) => [new TextDecoder().decode(e.name), e.kind]).sort();
    assertEquals(entries, [["b", "dir"], ["inside-link", "symlink"], ["out", "symlink"], ["secret-link", "symlink"]]);
    assertEquals(statAt(dir, "secret-link").kind, "symlink");
    closeFd(dir);
    closeFd(rootFd);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("names that are not UTF-8 are read and stat'ed as raw bytes", { ignore: LINUX_ONLY }, async () => {
  const { base, root, rootFd } = await tree();
  try {
    const name = new Uint8Array([0x78, 0xff, 0x79]);
    const dir = openBeneath(rootFd, ".", O.RDONLY | O.DIRECTORY);
    const fd = openAt(dir, name, O.WRONLY | O.CREAT | O.EXCL, 0o600);
    writeAllFd(fd, new TextEncoder().encode("bytes"));
    closeFd(fd);
    const found = readDirFd(dir).find((entry) => entry.name.length === 3 && entry.name[1] === 0xff);
    assert(found !== undefined);
    assertEquals(readDirFd(dir).length, 2, "a second listing through the same fd starts from the beginning");
    assertEquals(statAt(dir, found.name).size, 5);
    unlinkAt(dir, found.name);
    closeFd(dir);
    closeFd(rootFd);
    assertEquals([...Deno.readDirSync(root)].map((e) => e.name).sort(), ["a"]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("mkdirAt, renameAt, linkAt and unlinkAt act on names, not on what a symlink there points to", {
  ignore: LINUX_ONLY,
}, async () => {
  const { base, root, rootFd } = await tree();
  try {
    const dir = openBeneath(rootFd, "a", O.RDONLY | O.DIRECTORY);
    mkdirAt(dir, "new");
    assertEquals(statAt(dir, "new").kind, "dir");
    assert(assertThrows(() => mkdirAt(dir, "new")) instanceof Deno.errors.AlreadyExists);
    linkAt(dir, "secret-link", dir, "second-link"); // links the symlink itself
    assertEquals(statAt(dir, "second-link").kind, "symlink");
    renameAt(dir, "second-link", dir, "out"); // replaces the link named out, not what it points to
    assertEquals(Deno.readLinkSync(path.join(root, "a", "out")), path.join(base, "secret.txt"));
    unlinkAt(dir, "secret-link");
    unlinkAt(dir, "out");
    unlinkAt(dir, "new", true);
    // One component each, never a path that reaches past the directory fd (absolute, climbing, or deeper).
    for (const name of [path.join(base, "made-outside"), "../../made-outside", "b/../../../made-outside", ".."]) {
      assert(assertThrows(() => mkdirAt(dir, name)) instanceof TypeError, name);
      assert(assertThrows(() => renameAt(dir, "b", dir, name)) instanceof TypeError, name);
      assert(assertThrows(() => linkAt(dir, "inside-link", dir, name)) instanceof TypeError, name);
      assert(assertThrows(() => unlinkAt(dir, name)) instanceof TypeError, name);
      assert(assertThrows(() => statAt(dir, name)) instanceof TypeError, name);
    }
    assertEquals((await Deno.lstat(path.join(root, "a", "b"))).isDirectory, true);
    assertEquals(await Deno.readTextFile(path.join(base, "secret.txt")), "outside\n");
    assertEquals([...Deno.readDirSync(path.join(root, "a"))].map((e) => e.name).sort(), ["b", "inside-link"]);
    closeFd(dir);
    closeFd(rootFd);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("lockFd takes a free lock at once, waits for a held one until it is released, and gives up after its wait", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(path.join(dir, "f"), "x");
    const dirFd = openDirectory(dir);
    const first = openAt(dirFd, "f", O.RDONLY);
    const second = openAt(dirFd, "f", O.RDONLY);
    await lockFd(first, 1000);
    const error = await assertRejects(() => lockFd(second, 50));
    assert(error instanceof Deno.errors.TimedOut, String(error));
    let taken = false;
    const waiting = lockFd(second, 10_000).then(() => taken = true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assertEquals(taken, false);
    closeFd(first); // releases the first lock
    await waiting;
    assertEquals(taken, true);
    for (const fd of [second, dirFd]) closeFd(fd);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fdDirectory names an fd only fdOfDirectory reads back; any other path is no fd", () => {
  assertEquals(fdOfDirectory(fdDirectory(7)), 7);
  for (const other of ["/tmp", `${fdDirectory(7)}/sub`, fdDirectory(7).slice(0, -1), `${fdDirectory(7)}x`, ""]) {
    assertEquals(fdOfDirectory(other), null, other);
  }
});
