import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { Reactor } from "../os/reactor.ts";
import { directSpawner, isProgramNotFound } from "../os/spawn.ts";
import type { Spawner } from "../os/spawn_request.ts";
import { fdIdentities, fdIdentity, heldFds } from "../../testing/fd_identity.ts";
import { probePty } from "../os/pty.ts";
import { SIGNALS } from "../os/libc.ts";
import { Command, type StreamName } from "./command.ts";

/** Linux-only: these read processes and open fds in /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";
const NO_PTY = !probePty().supported;

const BASE_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp" };
const MIB = 1 << 20;

let counter = 0;

/** Launches `sh -c cmd` directly (no sandbox), as a policy's plan would. */
function launch(reactor: Reactor, cmd: string, options: { tty?: boolean; perStreamBytes?: number } = {}) {
  const plan = { argv: ["/bin/sh", "-c", cmd], env: BASE_ENV, cwd: "/tmp", chdir: "/tmp", spawner: directSpawner };
  return Command.launch(reactor, plan, {
    id: `t${++counter}`,
    cmd,
    tty: options.tty ?? false,
    perStreamBytes: options.perStreamBytes ?? MIB,
  });
}

/** Runs `body` with a launched command, then kills and reaps whatever is left, even when `body` fails. */
async function withCommand(
  cmd: string,
  options: { tty?: boolean; perStreamBytes?: number },
  body: (command: Command, reactor: Reactor) => Promise<void>,
): Promise<void> {
  const reactor = new Reactor();
  const command = await launch(reactor, cmd, options);
  try {
    await body(command, reactor);
  } finally {
    command.signal(SIGNALS.KILL);
    await command.done;
    await reactor.idle();
  }
}

/** The whole retained text of a stream that evicted nothing. */
function text(command: Command, name: StreamName): string {
  const stream = command.streams[name];
  return new TextDecoder().decode(stream.read(0, stream.total).bytes);
}

/** Polls `test` until it holds; fails after a generous deadline, never on speed. */
async function eventually(test: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function procStat(pid: number | string): ProcStat | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), state, ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return null;
  }
}

/** Gone, or a zombie of another parent (init here may never reap it): never alive, never our zombie. */
function isDead(pid: number): boolean {
  const stat = procStat(pid);
  return stat === null || (stat.state === "Z" && stat.ppid !== Deno.pid);
}

/** Every process whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = procStat(entry.name);
    if (stat?.pgrp === pgid) members.push(stat.pid);
  }
  return members;
}

/** The pipes or terminal a running command's stdin, stdout and stderr are on (other tests' fds are not). */
function commandFds(command: Command): Set<string> {
  return fdIdentities(command.pid, [0, 1, 2]);
}

Deno.test("Command: a short command's stdout and stderr are captured separately and completely, with its exit code", async () => {
  const expected = Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join("");
  await withCommand("seq 1 30000; printf err >&2; exit 3", {}, async (command, reactor) => {
    await command.done;
    assertEquals([command.status, command.exit], ["exited", { code: 3, signal: null }]);
    assertEquals(text(command, "stdout"), expected);
    assertEquals(text(command, "stderr"), "err");
    assert(command.streams.stdout.closed && command.streams.stderr.closed, "streams not closed at exit");
    assertEquals([command.streams.stdout.evictedBytes, command.streams.stderr.evictedBytes], [0, 0]);
    assert(command.lastOutputAt !== null && command.endedAt !== null && command.exitedAtEpoch !== null);
    assertEquals(reactor.size, 0);
  });
});

Deno.test("Command: a command killed by a signal reports the signal and is reaped, leaving no zombie", {
  ignore: LINUX_ONLY,
}, async () => {
  await withCommand("sleep 30", {}, async (command) => {
    assertEquals([command.status, command.exit], ["running", null]);
    assert(command.signal(SIGNALS.TERM), "signal found no process group");
    await command.done;
    assertEquals([command.status, command.exit], ["exited", { code: null, signal: SIGNALS.TERM }]);
    assertEquals(procStat(command.pid), null);
    assertEquals(command.signal(SIGNALS.KILL), false);
  });
});

Deno.test("Command: text written to stdin reaches the program and closeStdin gives it EOF", async () => {
  await withCommand("cat; echo eof", {}, async (command) => {
    assert(command.stdinOpen, "stdin closed at start");
    command.write("hello\n");
    await eventually(() => text(command, "stdout") === "hello\n", "cat to echo the first line");
    assertEquals(command.status, "running");
    command.write("bye");
    command.closeStdin();
    assertEquals(command.stdinOpen, false);
    await command.done;
    assertEquals([command.exit, text(command, "stdout")], [{ code: 0, signal: null }, "hello\nbyeeof\n"]);
  });
});

Deno.test("Command: stdin larger than the pipe buffer is written in full before the pipe closes", async () => {
  await withCommand("wc -c", {}, async (command) => {
    command.write("x".repeat(4 * MIB));
    command.closeStdin();
    await command.done;
    assertEquals([command.exit, text(command, "stdout").trim()], [{ code: 0, signal: null }, String(4 * MIB)]);
  });
});

Deno.test("Command: output beyond the per-stream budget keeps head and tail and counts the evicted bytes", async () => {
  const expected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join("");
  await withCommand("printf ok; seq 1 20000 >&2", { perStreamBytes: 8192 }, async (command) => {
    await command.done;
    const stderr = command.streams.stderr;
    assertEquals([stderr.total, stderr.retainedBytes], [expected.length, 8192]);
    assertEquals(stderr.evictedBytes, expected.length - 8192);
    assertEquals(stderr.retained(), [{ start: 0, end: 1024 }, {
      start: expected.length - 7168,
      end: expected.length,
    }]);
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assertEquals(decode(stderr.read(0, 1024).bytes), expected.slice(0, 1024));
    assertEquals(decode(stderr.read(1024, 8192).bytes), expected.slice(-7168));
    assertEquals([text(command, "stdout"), command.retainedBytes], ["ok", 8192 + 2]);
  });
});

Deno.test("Command: when the leader exits, background children left in its group are killed", {
  ignore: LINUX_ONLY,
}, async () => {
  await withCommand("sleep 30 & echo $!", {}, async (command) => {
    await command.done;
    assertEquals(command.exit, { code: 0, signal: null });
    const background = Number(text(command, "stdout").trim());
    assert(background > 0, `no pid printed: ${text(command, "stdout")}`);
    await eventually(() => isDead(background), `background sleep ${background} to die`);
  });
});

Deno.test("Command: signal() reaches the whole process group, grandchildren included", {
  ignore: LINUX_ONLY,
}, async () => {
  await withCommand("sleep 30 & sleep 30", {}, async (command) => {
    await eventually(() => groupMembers(command.pid).length >= 3, "the shell and both sleeps");
    const members = groupMembers(command.pid);
    assert(command.signal(SIGNALS.TERM), "signal found no process group");
    await command.done;
    assertEquals(command.exit, { code: null, signal: SIGNALS.TERM });
    // kill(-pgid, 0) cannot prove this here: init may leave the killed orphans as zombies in the group.
    await eventually(() => members.every(isDead), `group ${members} to die`);
    await eventually(() => groupMembers(command.pid).every(isDead), `no live process in group ${command.pid}`);
  });
});

Deno.test("Command: a writer that escaped the process group does not keep the command from finishing", {
  ignore: LINUX_ONLY,
}, async () => {
  let escaped = 0;
  try {
    await withCommand("setsid sh -c 'echo $$; exec sleep 30' & cat >/dev/null", {}, async (command) => {
      await eventually(() => text(command, "stdout").endsWith("\n"), "the escaped writer's pid");
      escaped = Number(text(command, "stdout").trim());
      command.closeStdin();
      await command.done;
      assertEquals([command.exit, command.streams.stdout.closed], [{ code: 0, signal: null }, true]);
      assert(!isDead(escaped), "the escaped writer was killed with the group");
      assert(procStat(escaped)?.pgrp !== command.pid, "the writer did not leave the group");
    });
  } finally {
    if (escaped > 0 && !isDead(escaped)) Deno.kill(escaped, "SIGKILL");
  }
});

Deno.test("Command: a TTY command sees a terminal, reads input through it and gets EOF from closeStdin", {
  ignore: NO_PTY,
}, async () => {
  await withCommand("test -t 0 && test -t 1 && echo tty; cat; echo eof", { tty: true }, async (command) => {
    assert(command.tty && command.streams.stderr.closed, "a TTY command has one output stream");
    await eventually(() => text(command, "stdout") === "tty\r\n", "the terminal check");
    command.write("hi\n");
    command.closeStdin();
    await command.done;
    assertEquals(command.exit, { code: 0, signal: null });
    // The terminal echoes the line, then cat copies it.
    assertEquals(text(command, "stdout"), "tty\r\nhi\r\nhi\r\neof\r\n");
    assertEquals(command.streams.stderr.total, 0);
  });
});

Deno.test("Command: a finished command leaves no fd open and nothing watched, with pipes or a PTY", {
  ignore: LINUX_ONLY,
}, async () => {
  const reactor = new Reactor();
  for (const tty of NO_PTY ? [false] : [false, true]) {
    const command = await launch(reactor, "cat; echo done", { tty });
    const used = commandFds(command);
    assertEquals(used.size, tty ? 1 : 3, `tty: ${tty}: ${[...used]}`);
    command.write("input\n");
    command.closeStdin();
    await command.done;
    await reactor.idle();
    assertEquals(command.exit, { code: 0, signal: null });
    assertEquals([reactor.size, heldFds(used)], [0, []], `tty: ${tty}`);
  }
});

Deno.test("Command: a killed command's fds are all released", { ignore: LINUX_ONLY }, async () => {
  const reactor = new Reactor();
  const command = await launch(reactor, "sleep 30 & sleep 30");
  const used = commandFds(command);
  assertEquals(used.size, 3, [...used].join(" "));
  command.signal(SIGNALS.KILL);
  await command.done;
  await reactor.idle();
  assertEquals([command.exit, reactor.size, heldFds(used)], [{ code: null, signal: SIGNALS.KILL }, 0, []]);
});

Deno.test("Command: launch rejects with the spawner's error and closes every fd it opened", {
  ignore: LINUX_ONLY,
}, async () => {
  const reactor = new Reactor();
  // What the spawner was handed: the pipes, or the terminal's slave, that launch opened for the child.
  const handed = new Set<string>();
  const spawner: Spawner = (request) => {
    for (const fd of [request.stdio.stdin, request.stdio.stdout, request.stdio.stderr]) {
      const id = fdIdentity(fd);
      if (id !== null) handed.add(id);
    }
    if (request.ttySlave !== undefined) handed.add(request.ttySlave);
    return directSpawner(request);
  };
  const plan = { argv: ["/nonexistent/program"], env: BASE_ENV, cwd: "/tmp", chdir: "/tmp", spawner };
  for (const tty of NO_PTY ? [false] : [false, true]) {
    handed.clear();
    const error = await assertRejects(() =>
      Command.launch(reactor, plan, { id: "missing", cmd: "/nonexistent/program", tty, perStreamBytes: MIB })
    );
    assert(isProgramNotFound(error), `unexpected error: ${error}`);
    assertEquals(handed.size, tty ? 1 : 3, `tty: ${tty}: ${[...handed]}`);
    assertEquals([reactor.size, heldFds(handed)], [0, []], `tty: ${tty}`);
  }
});
