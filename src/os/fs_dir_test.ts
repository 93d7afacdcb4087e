import * as path from "node:path";
import { assert, assertEquals } from "../../testing/assert.ts";
import { openAt, openDirectory } from "./fs_at.ts";
import { DIRENT_LAYOUTS, kindOfDirentType, readDirPosix } from "./fs_dir.ts";
import { statFdPosix } from "./fs_stat.ts";
import { closeFd } from "./fd.ts";
import { O } from "./libc.ts";

async function tree(): Promise<{ base: string; dirFd: number }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-fs-dir-" }));
  await Deno.mkdir(path.join(base, "sub"));
  await Deno.writeTextFile(path.join(base, "file.txt"), "twelve bytes");
  await Deno.symlink("/etc/passwd", path.join(base, "link"));
  return { base, dirFd: openDirectory(base, { readable: true }) };
}

Deno.test("readDirPosix lists every entry with its kind, names that are not UTF-8 as bytes, and leaves the fd open", async () => {
  const { base, dirFd } = await tree();
  try {
    // More entries than one readdir buffer holds, and a name that is not UTF-8 (made through the fd).
    for (let i = 0; i < 600; i++) await Deno.writeTextFile(path.join(base, "sub", `entry-${i}.txt`), "");
    const raw = new Uint8Array([0x6e, 0xff, 0x6d]);
    closeFd(openAt(dirFd, raw, O.WRONLY | O.CREAT | O.EXCL, 0o644));
    const top = readDirPosix(dirFd);
    const names = top.map((entry) => entry.name);
    assert(names.some((name) => name.length === 3 && name[1] === 0xff), "the raw name is kept");
    const byName = Object.fromEntries(top.map((entry) => [new TextDecoder().decode(entry.name), entry.kind]));
    assertEquals([byName["file.txt"], byName["sub"], byName["link"]], ["file", "dir", "symlink"]);
    assertEquals(top.length, 4, "no . or ..");
    const subFd = openAt(dirFd, "sub", O.RDONLY | O.DIRECTORY);
    assertEquals(readDirPosix(subFd).length, 600);
    assertEquals(readDirPosix(subFd).length, 600, "listed again from the start: the fd is not consumed");
    closeFd(subFd);
    assertEquals(statFdPosix(dirFd).kind, "dir", "the fd given stays open");
  } finally {
    closeFd(dirFd);
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("darwin's struct dirent: the offsets of <sys/dirent.h> with 64-bit inodes; d_type kinds", () => {
  assertEquals(DIRENT_LAYOUTS.darwin, { reclen: 16, type: 20, name: 21 });
  assertEquals([4, 8, 10, 0, 1].map(kindOfDirentType), ["dir", "file", "symlink", null, "other"]);
});
