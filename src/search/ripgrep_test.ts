import { openFds } from "../../testing/fd_identity.ts";
import { assert, assertEquals } from "../../testing/assert.ts";
import {
  decodeRgData,
  RG_BUFFERED_BYTES,
  RG_MAX_WARNINGS,
  rgWarnings,
  type RipgrepProcess,
  spawnRipgrep,
} from "./ripgrep.ts";
import { decodeBytes } from "../text/utf8.ts";
import { rgPath } from "@vscode/ripgrep";
import { Reactor } from "../os/reactor.ts";
import { directSpawner } from "../os/spawn.ts";
import { fdPath, openDirectory } from "../os/fs_at.ts";
import { closeFd } from "../os/fd.ts";

/** Linux-only: these watch rg's fds and children through /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";

const reactor = new Reactor();
const launch = { rgPath, spawner: directSpawner, reactor, confined: false };

async function collect(rg: RipgrepProcess): Promise<string> {
  let out = "";
  for await (const chunk of rg.chunks()) out += new TextDecoder().decode(chunk);
  return out;
}

/** Runs `fn` with an O_PATH fd of `dir`, closed afterwards. */
async function inDir<T>(dir: string, fn: (fd: number) => Promise<T>): Promise<T> {
  const fd = openDirectory(dir);
  try {
    return await fn(fd);
  } finally {
    closeFd(fd);
  }
}

/*
 * Other test files run in this process under --parallel, so only what these tests can be blamed for is
 * counted here: fds into their own directory and rg children. Pipes and pidfds are counted end to end, on a
 * server process of its own (ripgrep_runner_test.ts).
 */

/** rg children of this process, zombies included. */
function children(): string[] {
  return [...Deno.readDirSync("/proc/self/task")].flatMap((task) => {
    try {
      return Deno.readTextFileSync(`/proc/self/task/${task.name}/children`).trim().split(" ").filter(Boolean);
    } catch {
      return [];
    }
  }).filter((pid) => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/stat`).includes(" (rg) ");
    } catch {
      return false;
    }
  });
}

Deno.test("spawnRipgrep: empty environment, so RIPGREP_CONFIG_PATH in ours is not read; starts in the pinned dir", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.txt`, "yes\nno\n");
  await Deno.writeTextFile(`${dir}/rgrc`, "--invert-match\n");
  Deno.env.set("RIPGREP_CONFIG_PATH", `${dir}/rgrc`);
  try {
    const out = await inDir(dir, async (fd) => {
      // The path rg was pointed at is renamed away at once: rg still starts in the directory the fd holds.
      await using rg = await spawnRipgrep(launch, { args: ["--no-filename", "yes", "--", "a.txt"], cwd: fdPath(fd) });
      await Deno.rename(dir, `${dir}-moved`);
      const out = await collect(rg);
      assertEquals((await rg.finish()).code, 0);
      return out;
    });
    assertEquals(out, "yes\n");
  } finally {
    Deno.env.delete("RIPGREP_CONFIG_PATH");
    await Deno.remove(`${dir}-moved`, { recursive: true });
  }
});

Deno.test(
  "spawnRipgrep: kill ends rg at once; finish reports it; no fd or child is left",
  { ignore: LINUX_ONLY },
  async () => {
    const dir = await Deno.makeTempDir();
    for (let i = 0; i < 2000; i++) await Deno.writeTextFile(`${dir}/f${i}.txt`, "x\n");
    const fdsBefore = openFds(dir);
    await inDir(dir, async (fd) => {
      const rg = await spawnRipgrep(launch, { args: ["--files", "--", "."], cwd: fdPath(fd) });
      for await (const _ of rg.chunks()) {
        rg.kill();
        break;
      }
      const outcome = await rg.finish();
      assertEquals([outcome.killed, outcome.code], [true, null]);
      const failing = await spawnRipgrep(launch, { args: ["-e", "a(", "--", "."], cwd: fdPath(fd) });
      await collect(failing);
      const bad = await failing.finish();
      assert(bad.code === 2 && bad.stderr.includes("regex parse error"), bad.stderr);
    });
    await reactor.idle();
    assertEquals(children(), []);
    assertEquals(openFds(dir), fdsBefore);
    await Deno.remove(dir, { recursive: true });
  },
);

Deno.test("spawnRipgrep: a slow consumer pauses reading (bounded buffer), finish drains the rest, dispose cleans up", {
  ignore: LINUX_ONLY,
}, async () => {
  const dir = await Deno.makeTempDir();
  // About 12 MiB of matching lines: three times the buffer.
  const line = "match ".repeat(30) + "\n";
  await Deno.writeTextFile(`${dir}/big.txt`, line.repeat(Math.ceil((3 * RG_BUFFERED_BYTES) / line.length)));
  const fdsBefore = openFds(dir);
  await inDir(dir, async (fd) => {
    const rg = await spawnRipgrep(launch, { args: ["--no-filename", "match", "--", "big.txt"], cwd: fdPath(fd) });
    await rg.chunks()[Symbol.asyncIterator]().next();
    // Give rg time to fill the buffer and the pipe: it must then wait, having written about the bound, not 12 MiB.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [pid] = children();
    const written = Number(/wchar: (\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/io`))![1]);
    assert(written <= RG_BUFFERED_BYTES + 2 * 1024 * 1024, `rg wrote ${written} bytes ahead of the consumer`);
    const outcome = await rg.finish();
    assertEquals([outcome.code, outcome.killed], [0, false]);
    // Disposal of a run left mid-way kills it and waits for it.
    await using abandoned = await spawnRipgrep(launch, {
      args: ["--no-filename", "match", "--", "big.txt"],
      cwd: fdPath(fd),
    });
    await abandoned.chunks()[Symbol.asyncIterator]().next();
  });
  await reactor.idle();
  assertEquals(children(), []);
  assertEquals(openFds(dir), fdsBefore);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("spawnRipgrep: an aborted signal kills rg", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.txt`, "x\n");
  await inDir(dir, async (fd) => {
    const controller = new AbortController();
    controller.abort();
    await using rg = await spawnRipgrep(launch, {
      args: ["--files", "--", "."],
      cwd: fdPath(fd),
      signal: controller.signal,
    });
    assertEquals(await collect(rg), "");
    assertEquals((await rg.finish()).killed, true);
  });
  await reactor.idle();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("decodeRgData and decodeBytes: text as is, bytes lossy with a flag", () => {
  assertEquals(decodeRgData({ text: "a" }), { text: "a", lossy: false });
  assertEquals(decodeRgData({ bytes: btoa("ab\xff") }), { text: "ab\uFFFD", lossy: true });
  assertEquals(decodeBytes(new TextEncoder().encode("é")), { text: "é", lossy: false });
});

Deno.test("rgWarnings: paths relative to rg's start become workspace-relative; other lines stay; bounded", () => {
  const stderr = "rg: ./a/b: Permission denied (os error 13)\nrg: some other message\n\n";
  assertEquals(rgWarnings(stderr, "src/"), [
    "rg: src/a/b: Permission denied (os error 13)",
    "rg: some other message",
  ]);
  const many = rgWarnings(stderr.repeat(RG_MAX_WARNINGS), "");
  assertEquals(many.length, RG_MAX_WARNINGS);
  assertEquals(many[0], "rg: a/b: Permission denied (os error 13)");
  // A single file: rg names it as it was given.
  assertEquals(rgWarnings("rg: f.txt: Permission denied\n", "src/", "f.txt"), ["rg: src/f.txt: Permission denied"]);
});
