import { assert, assertEquals } from "../../testing/assert.ts";
import { controllingTerminalArgv, kqueueExitFd, pipeWakeChannel } from "./darwin.ts";
import { closeFd, hasExited, killGroup, makePipe, reap, writeSome } from "./fd.ts";
import { libc, POLL, SIGNALS } from "./libc.ts";
import { openPty } from "./pty.ts";
import { spawnChild } from "./spawn.ts";

const ON_DARWIN = Deno.build.os === "darwin";
const ENV = { PATH: "/usr/bin:/bin:/usr/sbin:/sbin" };

Deno.test("controllingTerminalArgv: /bin/sh opens the slave, then execs the program with its arguments untouched", async () => {
  const argv = controllingTerminalArgv("/dev/ttys004", "/usr/bin/printf", ["printf", "%s|", "a b", "$HOME", "*"]);
  assertEquals(argv.slice(0, 4), ["/bin/sh", "-c", ': <"$0" && exec "$@"', "/dev/ttys004"]);
  // The same script with /dev/null for the terminal runs anywhere: the arguments reach the program verbatim.
  const [shell, ...args] = controllingTerminalArgv("/dev/null", "/usr/bin/printf", [
    "printf",
    "%s|",
    "a b",
    "$HOME",
    "*",
  ]);
  const out = await new Deno.Command(shell, { args, stdout: "piped", stderr: "piped", cwd: "/" }).output();
  assertEquals(new TextDecoder().decode(out.stdout), "a b|$HOME|*|");
  const missing = await new Deno.Command(shell, {
    args: controllingTerminalArgv("/nonexistent-tty", "/usr/bin/true", ["true"]).slice(1),
    stderr: "null",
  }).output();
  assert(!missing.success, "no terminal, no command");
});

/** poll() on one fd for `events`, waiting up to `ms`: the revents, 0 on time-out. */
function pollOne(fd: number, events: number, ms: number): number {
  const set = new Uint8Array(8);
  const view = new DataView(set.buffer);
  view.setInt32(0, fd, true);
  view.setInt16(4, events, true);
  return libc().poll_now(set, 1n, ms) > 0 ? view.getInt16(6, true) : 0;
}

function spawnPiped(argv: string[]): { pid: number; output: number } {
  const [inR, inW] = makePipe();
  const [outR, outW] = makePipe();
  const pid = spawnChild({ argv, env: ENV, cwd: "/", stdio: { stdin: inR, stdout: outW, stderr: outW } });
  for (const fd of [inR, inW, outW]) closeFd(fd);
  return { pid, output: outR };
}

function readAll(fd: number): string {
  const chunks: string[] = [];
  const buffer = new Uint8Array(4096);
  for (let n; (n = Number(libc().read(fd, buffer, BigInt(buffer.length)))) > 0;) {
    chunks.push(new TextDecoder().decode(buffer.subarray(0, n)));
  }
  return chunks.join("");
}

async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; !done(); tries++) {
    if (tries > 2000) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test({
  name: "darwin kqueue exit fd: readable once the child exits, and at once for a child that exited before the watch",
  ignore: !ON_DARWIN,
  fn: async () => {
    const running = spawnPiped(["sleep", "0.2"]);
    const exitFd = kqueueExitFd(running.pid);
    assertEquals(pollOne(exitFd, POLL.IN, 0), 0, "not readable while it runs");
    assert(pollOne(exitFd, POLL.IN, 5000) & POLL.IN, "readable after the exit");
    await until(() => reap(running.pid) !== null);
    closeFd(exitFd);
    closeFd(running.output);

    const early = spawnPiped(["true"]);
    await until(() => hasExited(early.pid));
    const late = kqueueExitFd(early.pid);
    assert(pollOne(late, POLL.IN, 0) & POLL.IN, "an exit before the watch is seen too");
    assertEquals(reap(early.pid), { code: 0, signal: null });
    closeFd(late);
    closeFd(early.output);
  },
});

Deno.test({
  name: "darwin wake pipe: a write makes the read end readable, a drain quiets it",
  ignore: !ON_DARWIN,
  fn: () => {
    const wake = pipeWakeChannel();
    assertEquals(pollOne(wake.read, POLL.IN, 0), 0);
    assertEquals(writeSome(wake.write, new Uint8Array(8)), 8);
    assert(pollOne(wake.read, POLL.IN, 0) & POLL.IN);
    assertEquals(Number(libc().read(wake.read, new Uint8Array(64), 64n)), 8);
    assertEquals(pollOne(wake.read, POLL.IN, 0), 0);
    closeFd(wake.read);
    closeFd(wake.write);
  },
});

Deno.test({
  name: "darwin spawn: a session of its own, only fds 0-2, and the whole process group killed at once",
  ignore: !ON_DARWIN,
  fn: async () => {
    const session = spawnPiped(["/bin/sh", "-c", "ps -o pgid= -o stat= -p $$; ls /dev/fd"]);
    await until(() => hasExited(session.pid));
    const lines = readAll(session.output).trim().split("\n").map((line) => line.trim());
    closeFd(session.output);
    assertEquals(reap(session.pid), { code: 0, signal: null });
    const [pgid, stat] = lines[0].split(/\s+/);
    assertEquals(pgid, String(session.pid), "its own process group");
    assert(stat.includes("s"), `a session leader: ${stat}`);
    // ls itself holds fd 3 open on /dev/fd while it lists it.
    assertEquals(lines.slice(1).filter((fd) => Number(fd) > 3), [], `no inherited fd: ${lines.join(" ")}`);

    const group = spawnPiped(["/bin/sh", "-c", "sleep 30 & echo $!; wait"]);
    const line = new Uint8Array(64);
    const background = Number(new TextDecoder().decode(line.subarray(0, Number(libc().read(group.output, line, 64n)))));
    assert(background > 0, "the shell named its background sleep");
    assert(killGroup(group.pid, SIGNALS.KILL));
    await until(() => reap(group.pid) !== null);
    await until(() => libc().kill(background, 0) !== 0);
    closeFd(group.output);
  },
});

Deno.test({
  name: "darwin PTY: the slave is the child's controlling terminal, its size set, and ^C interrupts it",
  ignore: !ON_DARWIN,
  fn: async () => {
    const pty = openPty({ rows: 30, cols: 100 });
    assert(pty.slavePath.startsWith("/dev/ttys"), pty.slavePath);
    const pid = spawnChild({
      argv: ["sh", "-c", "test -t 0 && test -t 1 && stty size && tty && ps -o tpgid= -p $$ && exec sleep 30"],
      env: ENV,
      cwd: "/",
      stdio: { stdin: -1, stdout: -1, stderr: -1 },
      ttySlave: pty.slavePath,
    });
    let output = "";
    const buffer = new Uint8Array(4096);
    await until(() => {
      if (pollOne(pty.master, POLL.IN, 0) & POLL.IN) {
        output += new TextDecoder().decode(buffer.subarray(0, Number(libc().read(pty.master, buffer, 4096n))));
      }
      return output.replaceAll("\r", "").split("\n").length >= 4;
    });
    const [size, tty, foreground] = output.replaceAll("\r", "").split("\n").map((line) => line.trim());
    assertEquals([size, tty], ["30 100", pty.slavePath]);
    assertEquals(foreground, String(pid), "the child's group is the terminal's foreground group");
    assertEquals(writeSome(pty.master, new Uint8Array([0x03])), 1);
    await until(() => hasExited(pid));
    assertEquals(reap(pid), { code: null, signal: SIGNALS.INT });
    closeFd(pty.slave);
    closeFd(pty.master);
  },
});
