import { assert, assertEquals } from "../../testing/assert.ts";
import { RipgrepRunner } from "./ripgrep_runner.ts";
import type { RipgrepProcess } from "./ripgrep.ts";
import { memfdExecutable } from "../os/executable.ts";
import { type LandlockProbe, probeLandlock } from "../policy/landlock_probe.ts";
import { ChildSandboxes } from "../policy/linux_spawners.ts";
import { Reactor } from "../os/reactor.ts";
import { fdPath, openDirectory } from "../os/fs_at.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { rgPath } from "@vscode/ripgrep";
import { closeFd } from "../os/fd.ts";

/** Linux-only: these run rg through Linux's spawners (the launcher, Landlock) and from a memfd. */
const LINUX_ONLY = Deno.build.os !== "linux";

const landlock = probeLandlock();
const LANDLOCK = { ignore: landlock.abi === null, sanitizeOps: false, sanitizeResources: false };

/** A workspace with an inside file, a symlink to an outside tree holding a secret, and the runner on it. */
/** A runner on `root` with the children of a workspace there. */
function runnerOn(root: string, rg: { path: string; fd: number | null }, landlock: LandlockProbe = probeLandlock()) {
  const workspace = openWorkspace(root);
  const children = new ChildSandboxes(workspace, { tmpdir: null, env: Deno.env.toObject(), landlock, ripgrep: rg });
  return {
    runner: new RipgrepRunner({ rg, children, reactor: new Reactor() }),
    close: () => workspace[Symbol.dispose](),
  };
}

async function setup(rg: { path: string; fd: number | null } = { path: rgPath, fd: null }) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-rg-" }));
  const root = `${base}/ws`;
  await Deno.mkdir(`${root}/deep/er`, { recursive: true });
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/outside/secret.txt`, "SECRET outside\n");
  await Deno.writeTextFile(`${root}/deep/er/inside.txt`, "SECRET inside\n");
  await Deno.symlink(`${base}/outside`, `${root}/deep/link`);
  await Deno.writeTextFile(`${base}/.gitignore`, "ignored.txt\n");
  await Deno.writeTextFile(`${root}/ignored.txt`, "SECRET ignored by the parent's .gitignore\n");
  const { runner, close } = runnerOn(root, rg);
  return {
    base,
    root,
    runner,
    /** rg's output and stderr, run in `dir` (absolute). */
    async run(dir: string, args: string[]): Promise<{ out: string; stderr: string; confined: boolean }> {
      const fd = openDirectory(dir);
      let rg: RipgrepProcess;
      try {
        rg = await runner.start({ args, cwd: fdPath(fd) });
      } finally {
        closeFd(fd);
      }
      let out = "";
      for await (const chunk of rg.chunks()) out += new TextDecoder().decode(chunk);
      const { stderr } = await rg.finish();
      return { out, stderr, confined: rg.confined };
    },
    async [Symbol.asyncDispose]() {
      await runner.close();
      close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

Deno.test({
  name: "RipgrepRunner: sandboxed rg reads the workspace and its parents' ignore files, nothing outside",
  ...LANDLOCK,
  fn: async () => {
    await using ws = await setup();
    const inside = await ws.run(ws.root, ["--no-require-git", "-e", "SECRET", "--", "."]);
    assertEquals([inside.out, inside.stderr, inside.confined], ["./deep/er/inside.txt:SECRET inside\n", "", true]);
    // Through the symlink, asked to follow it (-L), or named directly: denied by the kernel, not read.
    const followed = await ws.run(ws.root, ["-L", "-e", "SECRET", "--", "."]);
    assert(!followed.out.includes("outside"), followed.out);
    assert(followed.stderr.includes("./deep/link: Permission denied"), followed.stderr);
    const named = await ws.run(ws.root, ["-e", "SECRET", "--", "deep/link/secret.txt"]);
    assertEquals(named.out, "");
    assert(named.stderr.includes("Permission denied"), named.stderr);
    // Started in a directory outside (an fd leading out): nothing listed either.
    const out = await ws.run(`${ws.base}/outside`, ["--files", "--", "."]);
    assertEquals(out.out, "");
    assert(out.stderr.includes("Permission denied"), out.stderr);
  },
});

Deno.test({
  name: "RipgrepRunner: the compiled binary's rg runs from a memfd inside the sandbox",
  ...LANDLOCK,
  ignore: LINUX_ONLY,
  fn: async () => {
    const memfd = memfdExecutable("rg", await Deno.readFile(rgPath));
    await using ws = await setup({ path: fdPath(memfd), fd: memfd });
    const inside = await ws.run(`${ws.root}/deep`, ["-e", "SECRET", "--", "."]);
    assertEquals([inside.out, inside.confined], ["./er/inside.txt:SECRET inside\n", true]);
    const followed = await ws.run(`${ws.root}/deep`, ["-L", "--files", "--", "."]);
    assertEquals(followed.out, "./er/inside.txt\n");
    closeFd(memfd);
  },
});

Deno.test("RipgrepRunner: without Landlock rg runs unconfined and says so", { ignore: LINUX_ONLY }, async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-rg-" }));
  await Deno.writeTextFile(`${base}/a.txt`, "x\n");
  const { runner, close } = runnerOn(base, { path: rgPath, fd: null }, { abi: null, reason: "not here" });
  const fd = openDirectory(base);
  try {
    await using rg = await runner.start({ args: ["--files", "--", "."], cwd: fdPath(fd) });
    assertEquals(rg.confined, false);
  } finally {
    closeFd(fd);
    await runner.close();
    close();
    await Deno.remove(base, { recursive: true });
  }
});
