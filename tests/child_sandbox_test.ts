/**
 * What a safe-mode command cannot do, tried as a workspace script would
 * (the gate sees only `python3 probe.py`; only the kernel can stop what the
 * script does): open a socket of any network protocol, write a terminal that
 * is not its own, read the user's credential stores, plant anything in the
 * workspace's git dirs, use root's capabilities. Each test also checks that
 * what should keep working does, and what trusted mode allows.
 */
import * as path from "node:path";
import dgram from "node:dgram";
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, type TestServer } from "./harness.ts";
import { commitAll, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { parseProbe } from "./sandbox_probe.ts";
import { openPty } from "../src/os/pty.ts";
import { closeFd, readSome, setNonblocking } from "../src/os/fd.ts";
import { CREDENTIAL_STORES } from "../src/policy/credentials.ts";

const IS_ROOT = Deno.uid() === 0;

const NET_PROBE_PY = `
import socket, sys
tcp, udp4, udp6 = map(int, sys.argv[1:4])
def attempt(name, fn):
    try:
        fn()
        print(name + "=ok")
    except OSError:
        print(name + "=denied")
def udp(family, host, port):
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.sendto(b"udp", (host, port))
def connect(proto):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    s.settimeout(3)
    s.connect(("127.0.0.1", tcp))
    s.send(b"tcp")
def pair():
    a, b = socket.socketpair()
    a.send(b"x")
    assert b.recv(1) == b"x"
attempt("udp4", lambda: udp(socket.AF_INET, "127.0.0.1", udp4))
attempt("udp6", lambda: udp(socket.AF_INET6, "::1", udp6))
attempt("tcp", lambda: connect(0))
attempt("mptcp", lambda: connect(262))
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
attempt("unix_pair", pair)
`;

const NET_PROBE_NODE = `
const dgram = require("node:dgram");
const net = require("node:net");
const [tcp, udp4] = process.argv.slice(2).map(Number);
const attempt = (name, fn) =>
  new Promise((resolve) => {
    const done = (ok) => { console.log(name + "=" + (ok ? "ok" : "denied")); resolve(); };
    try { fn(done); } catch { done(false); }
  });
(async () => {
  await attempt("node_udp4", (done) => {
    const socket = dgram.createSocket("udp4");
    socket.on("error", () => done(false));
    socket.send("udp", udp4, "127.0.0.1", (error) => { socket.close(); done(!error); });
  });
  await attempt("node_tcp", (done) => {
    const socket = net.connect(tcp, "127.0.0.1", () => { socket.end(); done(true); });
    socket.on("error", () => done(false));
  });
})();
`;

/** Loopback listeners counting what reaches them. */
async function listeners() {
  let datagrams = 0;
  let connections = 0;
  const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const connection of tcp) {
      connections++;
      connection.close();
    }
  })().catch(() => {});
  const bind = (type: "udp4" | "udp6", host: string) =>
    new Promise<dgram.Socket>((resolve) => {
      const socket = dgram.createSocket(type);
      socket.on("message", () => datagrams++);
      socket.bind(0, host, () => resolve(socket));
    });
  const [udp4, udp6] = await Promise.all([bind("udp4", "127.0.0.1"), bind("udp6", "::1")]);
  return {
    ports: [(tcp.addr as Deno.NetAddr).port, udp4.address().port, udp6.address().port],
    received: async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { datagrams, connections };
    },
    async close() {
      tcp.close();
      await accepting;
      udp4.close();
      udp6.close();
    },
  };
}

async function run(server: TestServer, cmd: string, extra: Record<string, unknown> = {}) {
  const result = await server.call("exec_command", { cmd, yield_time_ms: 30000, ...extra });
  assert(!result.isError, result.text);
  assertEquals(result.structured.status, "exited", result.text);
  return result.structured;
}

Deno.test("safe mode: no socket of any network protocol, from Python or Node; unix sockets still work", async () => {
  const net = await listeners();
  try {
    for (const mode of ["safe", "trusted"] as const) {
      await using server = await startServer({ args: ["--mode", mode] });
      await writeFiles(server.workspace, { "probe.py": NET_PROBE_PY, "probe.cjs": NET_PROBE_NODE });
      const ports = net.ports.join(" ");
      const py = parseProbe((await run(server, `python3 probe.py ${ports}`)).stdout);
      const node = parseProbe((await run(server, `node probe.cjs ${net.ports[0]} ${net.ports[1]}`)).stdout);
      const result = { ...py, ...node };
      if (mode === "safe") {
        assertEquals(result, {
          udp4: "denied",
          udp6: "denied",
          tcp: "denied",
          mptcp: "denied",
          raw: "denied",
          packet: "denied",
          unix_pair: "ok",
          node_udp4: "denied",
          node_tcp: "denied",
        });
        assertEquals(await net.received(), { datagrams: 0, connections: 0 });
      } else {
        // Trusted mode has local network; raw and packet sockets still need capabilities commands never have.
        assertEquals([result.udp4, result.udp6, result.tcp, result.node_udp4], ["ok", "ok", "ok", "ok"]);
        assertEquals([result.raw, result.packet], ["denied", "denied"]);
      }
    }
  } finally {
    await net.close();
  }
});

Deno.test("a command writes only its own terminal: another PTY on the machine is refused", async () => {
  const foreign = openPty();
  setNonblocking(foreign.master);
  try {
    for (const mode of ["safe", "trusted"] as const) {
      await using server = await startServer({ args: ["--mode", mode] });
      await writeFiles(server.workspace, {
        "write_tty.sh": [
          `if echo intruder > ${foreign.slavePath} 2>/dev/null; then echo foreign=ok; else echo foreign=denied; fi`,
          'own=$(tty) && if echo mine > "$own"; then echo own=ok; else echo own=denied; fi',
          "",
        ].join("\n"),
      });
      const piped = parseProbe((await run(server, "bash write_tty.sh")).stdout);
      assertEquals(piped.foreign, "denied");
      const tty = parseProbe((await run(server, "bash write_tty.sh", { tty: true })).stdout.replaceAll("\r", ""));
      assertEquals(tty, { foreign: "denied", own: "ok" });
    }
    assertEquals(readSome(foreign.master, new Uint8Array(256)), "again", "something reached the foreign terminal");
  } finally {
    closeFd(foreign.master);
    closeFd(foreign.slave);
  }
});

Deno.test("safe mode: the credential stores of HOME are unreadable by commands, while toolchains keep working", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-home-" }));
  try {
    for (const store of CREDENTIAL_STORES) {
      const file = store.includes(".json") || !store.startsWith(".") || /netrc|credentials|npmrc|pypirc/.test(store)
        ? path.join(home, store)
        : path.join(home, store, "secret");
      await Deno.mkdir(path.dirname(file), { recursive: true });
      await Deno.writeTextFile(file, "CREDENTIAL\n");
    }
    await Deno.writeTextFile(path.join(home, ".gitconfig"), "[user]\n\tname = Probe\n");
    await Deno.mkdir(path.join(home, ".config", "other"), { recursive: true });
    await Deno.writeTextFile(path.join(home, ".config", "other", "settings"), "ok\n");
    for (const mode of ["safe", "trusted"] as const) {
      await using server = await startServer({ args: ["--mode", mode], env: { HOME: home } });
      await initRepo(server.workspace);
      await writeFiles(server.workspace, {
        "read.sh": [
          `for f in $(cd ${home} && find . -name secret -o -name '*.json' -o -name .netrc -o -name .git-credentials -o -name .npmrc -o -name .pypirc); do`,
          `  if cat "${home}/$f" >/dev/null 2>&1; then echo "leak $f"; fi`,
          "done",
          `cat ${home}/.gitconfig ${home}/.config/other/settings`,
          `if ls ${home}/.ssh >/dev/null 2>&1; then echo listed; fi`,
          "",
        ].join("\n"),
        "hello.py": "print('python runs')\n",
        "hello.cjs": "console.log('node runs')\n",
        "Makefile": "all:\n\t@echo make runs\n",
      });
      const read = (await run(server, "bash read.sh")).stdout;
      const toolchains = [
        (await run(server, "python3 hello.py")).stdout,
        (await run(server, "node hello.cjs")).stdout,
        (await run(server, "make")).stdout,
        (await run(server, "git status --short")).exit_code,
      ];
      if (mode === "safe") {
        assertEquals(read, "[user]\n\tname = Probe\nok\n");
      } else {
        assert(read.includes("leak ./.ssh/secret") && read.includes("listed"), read);
      }
      assertEquals(toolchains, ["python runs\n", "node runs\n", "make runs\n", 0]);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("safe mode: nothing can be planted in the git dir; git reads still work; trusted mode commits", async () => {
  for (const mode of ["safe", "trusted"] as const) {
    await using server = await startServer({ args: ["--mode", mode] });
    const ws = server.workspace;
    await initRepo(ws);
    await writeFiles(ws, { "a.txt": "one\n" });
    await commitAll(ws, "one");
    await writeFiles(ws, {
      "plant.sh": [
        'try() { if eval "$2" 2>/dev/null; then echo "$1=ok"; else echo "$1=denied"; fi; }',
        "try hook 'echo \"#!/bin/sh\" > .git/hooks/pre-commit'",
        "try config 'echo \"[workcell] planted = true\" >> .git/config'",
        "try attributes 'mkdir -p .git/info && echo \"* filter=x\" > .git/info/attributes'",
        "try status 'git status --short >/dev/null'",
        "try log 'git log --oneline >/dev/null'",
        "try commit 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m planted'",
        "try remove 'rm -rf .git/hooks'",
        "try rename 'mv .git .git-moved'",
        "",
      ].join("\n"),
    });
    const result = parseProbe((await run(server, "bash plant.sh")).stdout);
    if (mode === "safe") {
      assertEquals(result, {
        hook: "denied",
        config: "denied",
        attributes: "denied",
        rename: "denied",
        remove: "denied",
        status: "ok",
        log: "ok",
        commit: "denied",
      });
      const inside = await server.call("exec_command", { cmd: "ls", workdir: ".git/hooks" });
      assertEquals(inside.structured.error.code, "PATH_PROTECTED");
      const commit = await server.call("exec_command", { cmd: "git commit --allow-empty -m x" });
      assert(commit.structured.stderr.includes("Read-only file system"), commit.text);
      assert(commit.structured.hint.includes("git_write") && commit.text.includes("hint: "), commit.text);
    } else {
      assertEquals(Object.values(result), Array(8).fill("ok"), JSON.stringify(result));
    }
  }
});

Deno.test("safe mode: a git_write grant (asked through elicitation) makes the git dir writable for the session", async () => {
  await using server = await startServer({
    clientCapabilities: { elicitation: {} },
    onElicit: () => ({ action: "accept", content: { git_write: true } }),
  });
  await initRepo(server.workspace);
  await writeFiles(server.workspace, { "a.txt": "one\n" });
  await commitAll(server.workspace, "one");
  const cmd = "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m granted";
  assertEquals((await server.call("exec_command", { cmd })).structured.exit_code, 128);
  const grant = await server.call("request_permissions", { permissions: ["git_write"], reason: "commit the fix" });
  assertEquals([grant.structured.granted, grant.structured.session_grants], [true, ["git_write"]], grant.text);
  const env = (await server.call("check_exec_environment", {})).structured.sandbox.commands;
  assertEquals(env.read_only, []);
  const committed = await server.call("exec_command", { cmd });
  assertEquals([committed.structured.exit_code, committed.structured.hint], [0, null], committed.text);
});

Deno.test({
  name: "as root: a command has no capabilities (it cannot chown a file it does not own)",
  ignore: !IS_ROOT,
  fn: async () => {
    for (const mode of ["safe", "trusted"] as const) {
      await using server = await startServer({ args: ["--mode", mode] });
      await Deno.writeTextFile(path.join(server.workspace, "theirs.txt"), "x\n");
      await Deno.chown(path.join(server.workspace, "theirs.txt"), 1234, 1234);
      await writeFiles(server.workspace, {
        "caps.sh": [
          "if chown 0:0 theirs.txt 2>/dev/null; then echo chown=ok; else echo chown=denied; fi",
          "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status | awk '{print $2}' | sort -u",
          "",
        ].join("\n"),
      });
      const out = (await run(server, "bash caps.sh")).stdout;
      assertEquals(out, "chown=denied\n0000000000000000\n", mode);
      assertEquals((await Deno.stat(path.join(server.workspace, "theirs.txt"))).uid, 1234);
    }
  },
});

Deno.test("an argument list too long for the kernel is INVALID_ARGUMENT naming the limit", async () => {
  for (const mode of ["safe", "trusted", "dangerous"]) {
    await using server = await startServer({ args: ["--mode", mode] });
    const result = await server.call("exec_command", { cmd: `echo ${"x".repeat(200_000)}` });
    assertEquals(result.structured.error?.code, "INVALID_ARGUMENT", `${mode}: ${result.text}`);
    assert(result.text.includes("131072"), result.text);
  }
});
