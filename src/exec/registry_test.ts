import { assert, assertEquals } from "../../testing/assert.ts";
import { Reactor } from "../os/reactor.ts";
import { ToolError } from "../errors.ts";
import { CommandRegistry } from "./registry.ts";
import { directSpawner } from "../os/spawn.ts";
import type { CommandPolicy } from "../policy/policy.ts";
import { SIGNALS } from "../os/libc.ts";

/** Linux-only: these read a child's state and the server's threads in /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";

const BASE_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp" };

/** The registry is policy-free: this stand-in plans every command as `sh -c cmd`, unsandboxed. */
const shellPolicy: CommandPolicy = {
  plan: (request) =>
    Promise.resolve({
      argv: ["/bin/sh", "-c", request.cmd],
      env: { ...BASE_ENV, ...request.env },
      cwd: request.cwd,
      chdir: request.chdir,
      spawner: directSpawner,
    }),
};

function registry(limits?: ConstructorParameters<typeof CommandRegistry>[0]["limits"]) {
  return new CommandRegistry({
    policy: shellPolicy,
    tty: { supported: true, reason: null },
    reactor: new Reactor(),
    limits,
  });
}

function request(cmd: string, tty = false) {
  return { cmd, cwd: "/tmp", chdir: "/tmp", env: {}, tty, grants: new Set<string>() };
}

/** Gone, or dead and reparented to init (which reaps it): never alive, never our zombie. */
function isDead(pid: string): boolean {
  const stat = (() => {
    try {
      return Deno.readTextFileSync(`/proc/${pid}/stat`);
    } catch {
      return null;
    }
  })();
  if (stat === null) return true;
  const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return state === "Z" && Number(parent) !== Deno.pid;
}

function errorCode(fn: () => unknown): string | null {
  try {
    fn();
  } catch (error) {
    return error instanceof ToolError ? error.code : String(error);
  }
  return null;
}

Deno.test("registry: quick exit with stdout, stderr and exit code; pipes drained", async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("printf out; printf err >&2; exit 3"), owner);
  await commands.wait(command, 5000);
  const poll = commands.poll(command, 16384);
  assertEquals([poll.status, poll.exit_code, poll.stdout.text, poll.stderr.text], ["exited", 3, "out", "err"]);
  await commands.close();
});

Deno.test("registry: interactive stdin, close stdin, anti-hang env", async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("echo $TERM $PAGER $NO_COLOR; cat"), owner);
  await commands.wait(command, 200);
  assertEquals(commands.poll(command, 16384).stdout.text, "dumb cat 1\n");
  commands.write(command, "hello\n", false);
  await commands.wait(command, 200);
  assertEquals(commands.poll(command, 16384).stdout.text, "hello\n");
  commands.write(command, "bye", true);
  await commands.wait(command, 5000);
  const poll = commands.poll(command, 16384);
  assertEquals([poll.status, poll.exit_code, poll.stdout.text], ["exited", 0, "bye"]);
  assertEquals(errorCode(() => commands.write(command, "x", false)), "COMMAND_EXITED");
  await commands.close();
});

Deno.test("registry: a TTY child sees a terminal", async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("test -t 0 && test -t 1 && echo $TERM && stty size", true), owner);
  await commands.wait(command, 5000);
  const poll = commands.poll(command, 16384);
  assertEquals([poll.status, poll.exit_code, poll.stdout.text], ["exited", 0, "xterm-256color\r\n24 80\r\n"]);
  await commands.close();
});

Deno.test("registry: kill ends the whole tree and reaps it", { ignore: LINUX_ONLY }, async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("sleep 60 & sleep 60 & echo started; wait"), owner);
  await commands.wait(command, 300);
  const pids = (await new Deno.Command("pgrep", { args: ["-g", String(command.pid)] }).output()).stdout;
  const group = new TextDecoder().decode(pids).trim().split("\n");
  assert(group.length >= 3, `expected the shell and two sleeps, got ${group}`);
  await commands.kill(command, "TERM");
  const poll = commands.poll(command, 16384);
  assertEquals([poll.status, poll.signal], ["exited", "SIGTERM"]);
  // Orphans got SIGKILL with the leader's exit; dying takes them a moment on a loaded machine.
  for (let tries = 0; tries < 40 && !group.every(isDead); tries++) await new Promise((r) => setTimeout(r, 50));
  for (const pid of group) assert(isDead(pid), `pid ${pid} survived`);
  await commands.close();
});

Deno.test("registry: sessions are isolated; pruned commands say so", async () => {
  const commands = registry({
    maxActiveCommands: 2,
    maxRetainedCommands: 1,
    perStreamBytes: 1024,
    totalOutputBytes: 1024 * 1024,
    retentionMs: 60_000,
  });
  const mine = new Set<string>();
  const first = await commands.start(request("true"), mine);
  await commands.wait(first, 5000);
  assertEquals(errorCode(() => commands.get(first.id, new Set())), "UNKNOWN_COMMAND");
  const second = await commands.start(request("true"), mine);
  await commands.wait(second, 5000);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(errorCode(() => commands.get(first.id, mine)), "COMMAND_PRUNED");
  const a = await commands.start(request("sleep 30"), mine);
  const b = await commands.start(request("sleep 30"), mine);
  const refused = await commands.start(request("sleep 30"), mine).catch((error) => error);
  assert(refused instanceof ToolError && refused.code === "COMMAND_LIMIT" && refused.message.includes(a.id));
  await commands.kill(b, "KILL");
  await commands.close();
});

Deno.test("registry: finished commands expire after the retention time", async () => {
  const commands = registry({
    maxActiveCommands: 2,
    maxRetainedCommands: 4,
    perStreamBytes: 1024,
    totalOutputBytes: 1024 * 1024,
    retentionMs: 50,
  });
  const owner = new Set<string>();
  const command = await commands.start(request("echo kept"), owner);
  await commands.wait(command, 5000);
  assertEquals(commands.get(command.id, owner), command);
  await new Promise((resolve) => setTimeout(resolve, 80));
  assertEquals(errorCode(() => commands.get(command.id, owner)), "COMMAND_PRUNED");
  await commands.close();
});

Deno.test("registry: retention keeps head and tail, counts the gap", async () => {
  const commands = registry({
    maxActiveCommands: 2,
    maxRetainedCommands: 4,
    perStreamBytes: 8192,
    totalOutputBytes: 1024 * 1024,
    retentionMs: 60_000,
  });
  const owner = new Set<string>();
  const command = await commands.start(request("seq 1 20000"), owner);
  await commands.wait(command, 5000);
  const poll = commands.poll(command, 1024);
  assert(poll.stdout.truncated && poll.stdout.text.startsWith("1\n2\n") && poll.stdout.text.endsWith("19999\n20000\n"));
  const total = poll.stdout_total_bytes;
  const ref = `command:${command.id}:stdout`;
  const head = commands.read(ref, 0, 65536, owner);
  assertEquals([head.offset, head.next_offset, head.eof], [0, 1024, false]);
  const afterHead = commands.read(ref, head.next_offset, 65536, owner);
  assertEquals(afterHead.offset, total - 7168);
  assertEquals(afterHead.evicted_gap_bytes, total - 7168 - 1024);
  assertEquals(afterHead.omitted_bytes, total - 8192);
  assert(afterHead.eof && afterHead.data.endsWith("20000\n"));
  assertEquals(errorCode(() => commands.read("command:nope:stdout", 0, 10, owner)), "OUTPUT_REF_INVALID");
  assertEquals(errorCode(() => commands.read("stdout", 0, 10, owner)), "OUTPUT_REF_INVALID");
  await commands.close();
});

Deno.test(
  "registry: 32 PTY sessions share one poll thread; async file I/O stays fast",
  { ignore: LINUX_ONLY },
  async () => {
    const commands = registry();
    const owner = new Set<string>();
    const started = await Promise.all(
      Array.from({ length: 32 }, () => commands.start(request("sleep 30", true), owner)),
    );
    const before = performance.now();
    for (let i = 0; i < 20; i++) await Deno.readTextFile("/proc/self/status");
    const elapsed = performance.now() - before;
    assert(elapsed < 1000, `20 file reads took ${elapsed} ms with 32 sessions open`);
    for (const command of started) command.signal(SIGNALS.KILL);
    await Promise.all(started.map((command) => command.done));
    await commands.close();
  },
);

Deno.test("registry: tty:true where no PTY can be made is TTY_UNSUPPORTED, never pipes", async () => {
  const commands = new CommandRegistry({
    policy: shellPolicy,
    tty: { supported: false, reason: "no /dev/ptmx" },
    reactor: new Reactor(),
  });
  const refused = await commands.start(request("true", true), new Set()).catch((error) => error);
  assert(refused instanceof ToolError && refused.code === "TTY_UNSUPPORTED" && refused.message.includes("/dev/ptmx"));
  await commands.close();
});

Deno.test("registry: a settling wait returns once the answer is followed by quiet, not at the deadline", async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("cat"), owner);
  commands.write(command, "hello\n", false);
  const deadline = 60_000;
  const started = performance.now();
  await commands.wait(command, deadline, { settleMs: 100 });
  const elapsed = performance.now() - started;
  assert(elapsed < deadline / 2, `returned after ${elapsed} ms`);
  assertEquals([command.status, commands.poll(command, 16384).stdout.text], ["running", "hello\n"]);
  // Without new output a settling wait runs to its deadline (or the exit).
  await commands.wait(command, 300, { settleMs: 100 });
  assertEquals(commands.poll(command, 16384).stdout.text, "");
  commands.write(command, "", true);
  await commands.wait(command, 5000, { settleMs: 100 });
  assertEquals(command.status, "exited");
  await commands.close();
});

Deno.test("registry: an aborted wait returns at once", async () => {
  const commands = registry();
  const owner = new Set<string>();
  const command = await commands.start(request("sleep 30"), owner);
  const abort = new AbortController();
  const waiting = commands.wait(command, 60_000, { signal: abort.signal });
  abort.abort();
  await waiting;
  assertEquals(command.status, "running");
  await commands.kill(command, "KILL");
  assertEquals([command.status, commands.poll(command, 100).signal], ["exited", "SIGKILL"]);
  await commands.close();
});

Deno.test("registry: list shows a session's commands with pid, status, start time and bytes per stream", async () => {
  const commands = registry();
  const mine = new Set<string>();
  const done = await commands.start(request("printf abc; printf de >&2"), mine);
  await commands.wait(done, 5000);
  const running = await commands.start(request("sleep 30", true), mine);
  await commands.start(request("true"), new Set());
  const before = Date.now();
  const listing = commands.list(mine);
  assertEquals(listing.map((entry) => entry.command_id), [done.id, running.id]);
  assertEquals(listing[0], {
    command_id: done.id,
    cmd: "printf abc; printf de >&2",
    status: "exited",
    pid: done.pid,
    started_at: new Date(done.startedAtEpoch).toISOString(),
    exit_code: 0,
    signal: null,
    tty: false,
    stdout_bytes: 3,
    stderr_bytes: 2,
  });
  assertEquals([listing[1].status, listing[1].pid, listing[1].tty], ["running", running.pid, true]);
  assert(Date.parse(listing[1].started_at) <= before);
  await commands.close();
});

Deno.test("registry: release kills a session's commands and leaves no timer pending once they are reaped", async () => {
  const commands = registry();
  const mine = new Set<string>();
  const theirs = new Set<string>();
  const command = await commands.start(request("sleep 30"), mine);
  const other = await commands.start(request("sleep 30"), theirs);
  // A pending timer keeps the event loop, and so a server whose last session closed, alive until it fires.
  const pending = new Set<ReturnType<typeof setTimeout>>();
  const real = { set: globalThis.setTimeout, clear: globalThis.clearTimeout };
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const id = real.set(() => {
      pending.delete(id);
      fn();
    }, ms);
    pending.add(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id: ReturnType<typeof setTimeout>) => {
    pending.delete(id);
    real.clear(id);
  }) as typeof clearTimeout;
  try {
    await commands.release(mine);
  } finally {
    globalThis.setTimeout = real.set;
    globalThis.clearTimeout = real.clear;
  }
  assertEquals([command.status, other.status, pending.size], ["exited", "running", 0]);
  await commands.close();
});
