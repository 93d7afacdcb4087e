/**
 * macOS only: the Seatbelt profiles workcell writes, run by the real
 * `/usr/bin/sandbox-exec` (the CI workflow's macOS jobs run these; on Linux
 * they are ignored, and src/os/seatbelt_test.ts and
 * src/policy/seatbelt_policy_test.ts test the text and the plan instead).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { canonicalPath, renderProfile, SANDBOX_EXEC, sandboxExecArgv } from "../src/os/seatbelt.ts";
import { seatbeltProfile } from "../src/policy/seatbelt_policy.ts";
import type { CommandChild } from "../src/policy/child_sandbox_plan.ts";
import { rgPath } from "@vscode/ripgrep";
import { createChildSpawners } from "../src/policy/child_spawners.ts";
import { hostKernelSandbox } from "../src/policy/kernel_sandbox.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";
import { openWorkspace } from "../src/workspace/workspace.ts";
import { cString, libc, O } from "../src/os/libc.ts";
import { closeFd, type ExitStatus, reap } from "../src/os/fd.ts";

/** macOS-only: sandbox-exec and Seatbelt exist on macOS alone. */
const DARWIN_ONLY = Deno.build.os !== "darwin";

const canonical = (p: string) => canonicalPath(p, Deno.realPathSync);

interface Tree {
  root: string;
  workspace: string;
  tmpdir: string;
  home: string;
  outside: string;
}

/** A workspace named `name` (with a git dir), a private temp dir, a home holding ~/.ssh, and a directory outside. */
async function tree(name = "workspace"): Promise<Tree> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-seatbelt-" }));
  const t = {
    root,
    workspace: path.join(root, name),
    tmpdir: path.join(root, "tmp"),
    home: path.join(root, "home"),
    outside: path.join(root, "outside"),
  };
  for (const dir of [t.workspace, path.join(t.workspace, ".git"), t.tmpdir, path.join(t.home, ".ssh"), t.outside]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.writeTextFile(path.join(t.home, ".ssh", "id_ed25519"), "secret\n");
  return t;
}

function command(t: Tree, mode: "safe" | "trusted"): CommandChild {
  return {
    kind: "command",
    mode,
    grants: new Set(),
    root: t.workspace,
    tmpdir: t.tmpdir,
    gitDirs: mode === "safe" ? [{ path: path.join(t.workspace, ".git"), flags: 0 }] : [],
    readRules: [],
  };
}

/** Runs `script` with /bin/sh under the profile of `child`: its exit code and stderr. */
async function sandboxed(t: Tree, child: CommandChild, script: string): Promise<{ code: number; stderr: string }> {
  const profile = seatbeltProfile(child, { canonical, credentialStores: [path.join(t.home, ".ssh")] })!;
  const [program, ...args] = sandboxExecArgv(renderProfile(profile), "/bin/sh", ["sh", "-c", script]);
  const out = await new Deno.Command(program, {
    args,
    cwd: t.workspace,
    env: { PATH: "/usr/bin:/bin:/usr/sbin:/sbin", HOME: t.home, TMPDIR: t.tmpdir },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const q = (p: string) => `'${p.replaceAll("'", `'\\''`)}'`;

Deno.test({
  name: "seatbelt (macOS): a safe command writes the workspace and its temp dir, nothing outside, nothing in .git",
  ignore: DARWIN_ONLY,
  fn: async () => {
    const t = await tree();
    try {
      const safe = command(t, "safe");
      assertEquals((await sandboxed(t, safe, `echo x > ${q(path.join(t.workspace, "a"))}`)).code, 0);
      assertEquals((await sandboxed(t, safe, `echo x > ${q(path.join(t.tmpdir, "b"))}`)).code, 0);
      assert((await sandboxed(t, safe, `echo x > ${q(path.join(t.outside, "c"))}`)).code !== 0, "outside");
      assert((await sandboxed(t, safe, `echo x > ${q(path.join(t.workspace, ".git", "hook"))}`)).code !== 0, ".git");
      assert((await sandboxed(t, safe, `echo x > /tmp/workcell-seatbelt-escape-${Date.now()}`)).code !== 0, "/tmp");
      assertEquals([...Deno.readDirSync(t.outside)], []);
    } finally {
      await Deno.remove(t.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "seatbelt (macOS): a safe command cannot read ~/.ssh but reads the system; trusted reads it",
  ignore: DARWIN_ONLY,
  fn: async () => {
    const t = await tree();
    try {
      const key = q(path.join(t.home, ".ssh", "id_ed25519"));
      assert((await sandboxed(t, command(t, "safe"), `cat ${key}`)).code !== 0, "the store is unreadable");
      assertEquals((await sandboxed(t, command(t, "safe"), "cat /etc/hosts && ls /usr/bin")).code, 0);
      assertEquals((await sandboxed(t, command(t, "trusted"), `cat ${key}`)).code, 0);
    } finally {
      await Deno.remove(t.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "seatbelt (macOS): no network in safe mode (TCP to a local listener refused); trusted mode connects",
  ignore: DARWIN_ONLY,
  fn: async () => {
    const t = await tree();
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepting = (async () => {
      for await (const conn of listener) conn.close();
    })();
    try {
      const connect = `/usr/bin/nc -z -w 2 127.0.0.1 ${(listener.addr as Deno.NetAddr).port}`;
      assert((await sandboxed(t, command(t, "safe"), connect)).code !== 0, "safe mode has no network");
      assertEquals((await sandboxed(t, command(t, "trusted"), connect)).code, 0, "trusted mode has");
    } finally {
      listener.close();
      await accepting.catch(() => {});
      await Deno.remove(t.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "seatbelt (macOS): a workspace named with quotes, backslashes, parentheses, a newline and non-ASCII is itself",
  ignore: DARWIN_ONLY,
  fn: async () => {
    const t = await tree(`ws "q" \\ (allow default) ;x\né日`);
    try {
      const safe = command(t, "safe");
      const run = await sandboxed(t, safe, `echo x > ${q(path.join(t.workspace, "a"))}`);
      assertEquals(run.code, 0, run.stderr);
      assert((await sandboxed(t, safe, `echo x > ${q(path.join(t.outside, "c"))}`)).code !== 0, "still confined");
    } finally {
      await Deno.remove(t.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "seatbelt (macOS): the server's spawners start a safe command under sandbox-exec, and report Seatbelt",
  ignore: DARWIN_ONLY,
  fn: async () => {
    const t = await tree();
    const devNull = libc().open(cString("/dev/null"), O.RDWR | O.CLOEXEC, 0);
    try {
      using ws = openWorkspace(t.workspace);
      const env = { PATH: "/usr/bin:/bin:/usr/sbin:/sbin", HOME: t.home };
      const landlock = probeLandlock();
      const children = createChildSpawners(ws, {
        tmpdir: t.tmpdir,
        env,
        landlock,
        ripgrep: { path: rgPath, fd: null },
      });
      const spawn = children.commandSpawner("safe", new Set());
      const run = async (script: string): Promise<ExitStatus> => {
        const stdio = { stdin: devNull, stdout: devNull, stderr: devNull };
        const pid = await spawn({ argv: ["/bin/sh", "-c", script], env, cwd: t.workspace, stdio });
        for (;;) {
          const status = reap(pid);
          if (status !== null) return status;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      assertEquals((await run(`echo x > ${q(path.join(t.workspace, "a"))}`)).code, 0);
      assert((await run(`echo x > ${q(path.join(t.outside, "c"))}`)).code !== 0, "outside is refused");
      assertEquals(children.appliedCommandSandbox("safe", new Set())?.layers, ["seatbelt"]);
      const report = await children.report("safe", new Set(), []);
      assertEquals([report.landlock_abi, report.commands.enforced, report.commands.network], [null, true, "denied"]);
      const line = hostKernelSandbox(landlock, report.missing);
      assertEquals([line.name, line.available], ["Seatbelt", true], line.detail);
    } finally {
      closeFd(devNull);
      await Deno.remove(t.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "seatbelt (macOS): sandbox-exec is where workcell runs it",
  ignore: DARWIN_ONLY,
  fn: () => {
    assert(Deno.statSync(SANDBOX_EXEC).isFile);
  },
});
