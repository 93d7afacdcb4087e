import * as path from "node:path";
import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { openAt, openDirectory } from "./fs_at.ts";
import { parseStat, STAT_LAYOUTS, statAt, statAtPosix, statFd, statFdPosix } from "./fs_stat.ts";
import { closeFd } from "./fd.ts";
import { O } from "./libc.ts";

async function tree(): Promise<{ base: string; dirFd: number }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-fs-stat-" }));
  await Deno.mkdir(path.join(base, "sub"));
  await Deno.writeTextFile(path.join(base, "file.txt"), "twelve bytes");
  await Deno.symlink("/etc/passwd", path.join(base, "link"));
  return { base, dirFd: openDirectory(base, { readable: true }) };
}

Deno.test("statFdPosix and statAtPosix agree with Deno's stat and lstat (this system's struct stat layout)", async () => {
  const { base, dirFd } = await tree();
  try {
    for (const name of ["file.txt", "sub", "link"]) {
      const deno = Deno.lstatSync(path.join(base, name));
      const ours = statAtPosix(dirFd, name);
      assertEquals([ours.ino, ours.dev, ours.size, ours.mode], [deno.ino, deno.dev, deno.size, deno.mode! & 0o7777]);
      assertEquals(ours.mtime.getTime(), deno.mtime!.getTime(), name);
      assertEquals(ours.kind, deno.isFile ? "file" : deno.isDirectory ? "dir" : "symlink", name);
    }
    const fd = openAt(dirFd, "file.txt", O.RDONLY);
    assertEquals(statFdPosix(fd), statAtPosix(dirFd, "file.txt"));
    closeFd(fd);
    assert(assertThrows(() => statAtPosix(dirFd, "missing")) instanceof Deno.errors.NotFound);
  } finally {
    closeFd(dirFd);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("statx: statAt and statFd agree with Deno, a size past 2^32 and an mtime before 1970 too", async () => {
  const { base, dirFd } = await tree();
  try {
    const big = path.join(base, "big.bin");
    using file = await Deno.open(big, { write: true, create: true });
    await file.truncate(2 ** 33 + 5); // sparse
    await Deno.utime(big, -86_400.25, -86_400.25);
    for (const name of ["file.txt", "sub", "link", "big.bin"]) {
      const deno = Deno.lstatSync(path.join(base, name));
      const ours = statAt(dirFd, name);
      assertEquals([ours.ino, ours.dev, ours.size, ours.mtime.getTime()], [
        deno.ino,
        deno.dev,
        deno.size,
        deno.mtime!.getTime(),
      ]);
    }
    const fd = openAt(dirFd, "big.bin", O.RDONLY);
    assertEquals(statFd(fd), statAt(dirFd, "big.bin"));
    closeFd(fd);
    const missing = assertThrows(() => statAt(dirFd, "missing")) as Error;
    assert(missing instanceof Deno.errors.NotFound && missing.message.includes('lstat "missing"'), missing.message);
    for (const name of ["a/b", "..", "x\0y"]) {
      assert(assertThrows(() => statAt(dirFd, name)) instanceof TypeError, name);
    }
  } finally {
    closeFd(dirFd);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("darwin's struct stat: the offsets of <sys/stat.h> with 64-bit inodes", () => {
  const bytes = new Uint8Array(STAT_LAYOUTS.darwin.bytes);
  const view = new DataView(bytes.buffer);
  view.setInt32(0, 0x1000004, true); // st_dev
  view.setUint16(4, 0o100640, true); // st_mode
  view.setUint16(6, 1, true); // st_nlink
  view.setBigUint64(8, 123456789n, true); // st_ino
  view.setBigInt64(32, 1n, true); // st_atimespec: not read
  view.setBigInt64(48, 1_700_000_000n, true); // st_mtimespec.tv_sec
  view.setBigInt64(56, 250_000_000n, true); // st_mtimespec.tv_nsec
  view.setBigInt64(96, 4096n, true); // st_size
  assertEquals(parseStat(bytes, STAT_LAYOUTS.darwin), {
    kind: "file",
    mode: 0o640,
    ino: 123456789,
    size: 4096,
    mtime: new Date(1_700_000_000_250),
    dev: 0x1000004,
  });
});
