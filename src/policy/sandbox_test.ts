import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { parseProbe, probeTargets } from "../../tests/sandbox_probe.ts";
import { Sandbox, SandboxSpawnError } from "./sandbox.ts";
import { landlockRuleset } from "./landlock.ts";
import { findPerl } from "./command_domain.ts";
import { probeLandlock } from "./landlock_probe.ts";
import { directSpawner } from "../exec/spawn.ts";
import type { Spawner } from "../exec/spawn_request.ts";
import { closeFd, makePipe, reap } from "../exec/fd.ts";
import { libc } from "../os/libc.ts";
import { openPty } from "../exec/pty.ts";

const { abi } = probeLandlock();
const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" };

function readAll(fd: number): string {
  let text = "";
  const buffer = new Uint8Array(65536);
  for (;;) {
    const n = Number(libc().read(fd, buffer, BigInt(buffer.length)));
    if (n <= 0) return text;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
}

async function waitExit(pid: number) {
  for (;;) {
    const status = reap(pid);
    if (status) return status;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Runs argv through `spawner` with a pipe for stdout+stderr; returns the output. */
async function runPiped(spawner: Spawner, argv: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const [outR, outW] = makePipe();
  const [inR, inW] = makePipe();
  const pid = await spawner({ argv, env, cwd, stdio: { stdin: inR, stdout: outW, stderr: outW } });
  closeFd(inR);
  closeFd(inW);
  closeFd(outW);
  const output = readAll(outR);
  closeFd(outR);
  await waitExit(pid);
  return output;
}

async function setup() {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-sbx-" }));
  const tmpdir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-sbx-tmp-" }));
  return {
    workspace,
    tmpdir,
    env: { ...ENV, TMPDIR: tmpdir },
    async cleanup() {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(tmpdir, { recursive: true });
    },
  };
}

const LANDLOCK = { ignore: abi === null || abi < 4, sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "sandbox: a piped child and its grandchild write only in the workspace and TMPDIR and cannot connect",
  ...LANDLOCK,
  fn: async () => {
    const ws = await setup();
    await using target = await probeTargets();
    const sandbox = await Sandbox.start(landlockRuleset(abi!, { writable: [ws.workspace, ws.tmpdir], denyTcp: true }));
    try {
      await Deno.writeTextFile(`${ws.workspace}/probe.sh`, target.script);
      const result = parseProbe(await runPiped(sandbox.spawner, ["bash", "probe.sh"], ws.workspace, ws.env));
      assertEquals(result, {
        workspace: "ok",
        tmpdir: "ok",
        home: "denied",
        etc: "denied",
        var_tmp: "denied",
        mkdir_outside: "denied",
        tcp: "denied",
        grandchild_etc: "denied",
        dev_null: "ok",
      });
      // The same script spawned directly (no sandbox) succeeds everywhere: the denials are Landlock's.
      const direct = parseProbe(await runPiped(directSpawner, ["bash", "probe.sh"], ws.workspace, ws.env));
      assert(Object.values(direct).every((value) => value === "ok"), JSON.stringify(direct));
      // The server's own thread is not restricted.
      await Deno.writeTextFile(target.outside[2], "main thread");
    } finally {
      sandbox.close();
      await ws.cleanup();
    }
  },
});

Deno.test({
  name: "sandbox: a PTY child is confined too",
  ...LANDLOCK,
  fn: async () => {
    const ws = await setup();
    await using target = await probeTargets();
    const sandbox = await Sandbox.start(landlockRuleset(abi!, { writable: [ws.workspace, ws.tmpdir], denyTcp: true }));
    try {
      await Deno.writeTextFile(`${ws.workspace}/probe.sh`, `test -t 0 && echo tty=ok\n${target.script}`);
      const pty = openPty();
      const pid = await sandbox.spawner({
        argv: ["bash", "probe.sh"],
        env: ws.env,
        cwd: ws.workspace,
        stdio: { stdin: -1, stdout: -1, stderr: -1 },
        ttySlave: pty.slavePath,
      });
      await waitExit(pid);
      closeFd(pty.slave);
      const result = parseProbe(readAll(pty.master).replaceAll("\r", ""));
      closeFd(pty.master);
      assertEquals([result.tty, result.workspace, result.etc, result.home, result.tcp], [
        "ok",
        "ok",
        "denied",
        "denied",
        "denied",
      ]);
    } finally {
      sandbox.close();
      await ws.cleanup();
    }
  },
});

Deno.test({
  name: "sandbox: children cannot signal the server process nor ptrace the sandbox thread",
  ...LANDLOCK,
  fn: async () => {
    const ws = await setup();
    const sandbox = await Sandbox.start(landlockRuleset(abi!, { writable: [ws.workspace, ws.tmpdir], denyTcp: false }));
    try {
      const script = [
        `if kill -0 ${Deno.pid} 2>/dev/null; then echo signal_server=ok; else echo signal_server=denied; fi`,
        // PTRACE_ATTACH (16) on every thread of the server; PTRACE_DETACH (17) if it ever succeeded.
        `for t in /proc/${Deno.pid}/task/*; do gdb -batch -p "\${t##*/}" >/dev/null 2>&1 </dev/null && echo ptrace=ok; done; echo ptrace_done=ok`,
        "grep CapBnd /proc/self/status",
      ].join("\n");
      await Deno.writeTextFile(`${ws.workspace}/probe.sh`, script);
      const output = await runPiped(sandbox.spawner, ["bash", "probe.sh"], ws.workspace, ws.env);
      const result = parseProbe(output);
      assertEquals([result.signal_server, result.ptrace, result.ptrace_done], ["denied", undefined, "ok"]);
      assert(/CapBnd:\s+00000000000004df/.test(output), output);
    } finally {
      sandbox.close();
      await ws.cleanup();
    }
  },
});

Deno.test({
  name: "sandbox: a closed sandbox refuses to spawn (never falls back to an unconfined spawn)",
  ...LANDLOCK,
  fn: async () => {
    const ws = await setup();
    const sandbox = await Sandbox.start(landlockRuleset(abi!, { writable: [ws.workspace], denyTcp: true }));
    sandbox.close();
    try {
      const error = await assertRejects(() =>
        sandbox.spawner({ argv: ["true"], env: ws.env, cwd: ws.workspace, stdio: { stdin: 0, stdout: 1, stderr: 2 } })
      );
      assert(error instanceof SandboxSpawnError, String(error));
    } finally {
      await ws.cleanup();
    }
  },
});

Deno.test({
  name: "sandbox: each command gets its own domain: it cannot signal the sandbox thread or a sibling command",
  ignore: abi === null || abi < 6 || findPerl() === null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const ws = await setup();
    const ruleset = landlockRuleset(abi!, { writable: [ws.workspace, ws.tmpdir], denyTcp: false });
    const shared = await Sandbox.start(ruleset);
    const isolated = await Sandbox.start(ruleset, findPerl());
    try {
      const tids = [...Deno.readDirSync(`/proc/${Deno.pid}/task`)].map((entry) => entry.name);
      const probe = (sibling: number) =>
        [
          `for tid in ${tids.join(" ")}; do kill -0 $tid 2>/dev/null && echo thread=ok; done; echo threads_done=ok`,
          `if kill -0 ${sibling} 2>/dev/null; then echo sibling=ok; else echo sibling=denied; fi`,
          `if kill -0 $$ 2>/dev/null; then echo self=ok; else echo self=denied; fi`,
        ].join("\n");
      for (const [sandbox, expected] of [[shared, "ok"], [isolated, undefined]] as const) {
        const sibling = await sandbox.spawner({
          argv: ["sleep", "30"],
          env: ws.env,
          cwd: ws.workspace,
          stdio: { stdin: 0, stdout: 2, stderr: 2 },
        });
        await Deno.writeTextFile(`${ws.workspace}/probe.sh`, probe(sibling));
        const output = await runPiped(sandbox.spawner, ["bash", "probe.sh"], ws.workspace, ws.env);
        const result = parseProbe(output);
        // Shared domain: the worker thread and the sibling are reachable; own domain: neither is.
        assertEquals([result.thread, result.threads_done, result.sibling, result.self], [
          expected,
          "ok",
          expected ?? "denied",
          "ok",
        ]);
        Deno.kill(sibling, "SIGKILL");
        await waitExit(sibling);
      }
      // A missing program is still reported as ENOENT, before any wrapper runs.
      const missing = await assertRejects(() =>
        isolated.spawner({
          argv: ["no-such-program-xyz"],
          env: ws.env,
          cwd: ws.workspace,
          stdio: { stdin: 0, stdout: 1, stderr: 2 },
        })
      );
      assertEquals((missing as { errno?: number }).errno, 2);
    } finally {
      shared.close();
      isolated.close();
      await ws.cleanup();
    }
  },
});
