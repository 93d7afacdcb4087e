import { assert, assertEquals } from "../../testing/assert.ts";
import { Reactor } from "./reactor.ts";
import { closeFd, type ExitStatus, makePipe, readSome, reap, setNonblocking, writeSome } from "./fd.ts";
import { F, libc, POLL } from "./libc.ts";
import { PROCESS } from "./platform.ts";
import { spawnChild } from "./spawn.ts";
import { fdIdentities, fdIdentity, heldFds } from "../../testing/fd_identity.ts";

/**
 * One reactor for the whole file: its wake-up channel opens on first use and, having no close, lives as long
 * as the reactor, so a reactor per test would leave one fd behind each. Assertions that could fail while fds
 * are still watched are made after idle(), so a failing test does not leave the next one waiting.
 */
const reactor = new Reactor();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function isOpen(fd: number): boolean {
  return libc().fcntl(fd, F.GETFL, 0) >= 0;
}

function openFdCount(): number {
  return [...Deno.readDirSync("/dev/fd")].length;
}

function write(fd: number, text: string): void {
  assertEquals(writeSome(fd, encoder.encode(text)), text.length);
}

/** Lets the reactor's loop reach its pending poll (it starts one microtask after the first watch). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Watches a pipe's read end, appending what it reads to `into`, and closes it through the reactor at EOF. */
function collect(fd: number, into: string[]): void {
  setNonblocking(fd);
  reactor.watch(fd, POLL.IN, () => {
    for (;;) {
      const result = readSome(fd, reactor.scratch);
      if (result === "again") return;
      if (result === "eof") return reactor.close(fd);
      into.push(decoder.decode(reactor.scratch.subarray(0, result)));
    }
  });
}

Deno.test("Reactor: a new reactor opens no fd, and idle() resolves at once while nothing is watched", async () => {
  // The count is of the whole process, which other test files share under --parallel: a reactor that opened an fd
  // would be one over in every try, another file's fd coming or going only in some.
  const counts: number[][] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = openFdCount();
    const fresh = new Reactor();
    await fresh.idle();
    fresh.unwatch(3);
    fresh.setEvents(3, POLL.IN);
    assertEquals(fresh.size, 0);
    counts.push([before, openFdCount()]);
    if (counts.at(-1)![0] === counts.at(-1)![1]) return;
  }
  throw new Error(`a fresh reactor changed the fd count in every try: ${JSON.stringify(counts)}`);
});

Deno.test("Reactor: a pipe becoming readable wakes its pending poll, and closing it at EOF stops the loop", async () => {
  const [readEnd, writeEnd] = makePipe();
  setNonblocking(readEnd);
  const revents: number[] = [];
  const received: string[] = [];
  reactor.watch(readEnd, POLL.IN, (events) => {
    revents.push(events);
    const result = readSome(readEnd, reactor.scratch);
    if (result === "eof") reactor.close(readEnd);
    else if (result !== "again") received.push(decoder.decode(reactor.scratch.subarray(0, result)));
  });
  await settle();
  const callsBeforeWrite = revents.length;
  write(writeEnd, "hello");
  closeFd(writeEnd);
  await reactor.idle();
  assertEquals([callsBeforeWrite, received.join(""), reactor.size, isOpen(readEnd)], [0, "hello", 0, false]);
  assert((revents[0] & POLL.IN) !== 0, `revents ${revents[0]} lacks POLL.IN`);
});

Deno.test("Reactor: several watched pipes each get their own wake-ups and bytes, and none is left open", async () => {
  const pipes = [makePipe(), makePipe(), makePipe()];
  const used = fdIdentities("self", pipes.map(([readEnd]) => readEnd));
  const received = pipes.map(() => [] as string[]);
  pipes.forEach(([readEnd], index) => collect(readEnd, received[index]));
  await settle();
  for (const [index, [, writeEnd]] of [...pipes.entries()].reverse()) {
    write(writeEnd, `pipe ${index}`);
    closeFd(writeEnd);
  }
  await reactor.idle();
  assertEquals(received.map((chunks) => chunks.join("")), ["pipe 0", "pipe 1", "pipe 2"]);
  assertEquals([used.size, reactor.size, heldFds(used)], [3, 0, []]);
});

Deno.test("Reactor: unwatch stops one pipe's callbacks, leaves it open, and the other pipe is still served", async () => {
  const [quietRead, quietWrite] = makePipe();
  const [loudRead, loudWrite] = makePipe();
  let quietCalls = 0;
  reactor.watch(quietRead, POLL.IN, () => quietCalls++);
  const received: string[] = [];
  collect(loudRead, received);
  await settle();
  reactor.unwatch(quietRead);
  write(quietWrite, "ignored");
  write(loudWrite, "served");
  closeFd(loudWrite);
  await reactor.idle();
  assertEquals([quietCalls, received.join(""), reactor.size, isOpen(quietRead)], [0, "served", 0, true]);
  closeFd(quietRead);
  closeFd(quietWrite);
});

Deno.test("Reactor: a callback that closes another fd ready in the same round keeps that fd's callback from running", async () => {
  const [firstRead, firstWrite] = makePipe();
  const [secondRead, secondWrite] = makePipe();
  write(firstWrite, "a");
  write(secondWrite, "b");
  let secondCalls = 0;
  reactor.watch(firstRead, POLL.IN, () => {
    reactor.close(firstRead);
    reactor.close(secondRead);
  });
  reactor.watch(secondRead, POLL.IN, () => secondCalls++);
  await reactor.idle();
  assertEquals([secondCalls, reactor.size, isOpen(firstRead), isOpen(secondRead)], [0, 0, false, false]);
  closeFd(firstWrite);
  closeFd(secondWrite);
});

Deno.test("Reactor: watching an fd again replaces its earlier callback", async () => {
  const [readEnd, writeEnd] = makePipe();
  let earlierCalls = 0;
  reactor.watch(readEnd, POLL.IN, () => earlierCalls++);
  const received: string[] = [];
  collect(readEnd, received);
  write(writeEnd, "latest");
  closeFd(writeEnd);
  await reactor.idle();
  assertEquals([earlierCalls, received.join(""), reactor.size], [0, "latest", 0]);
});

Deno.test("Reactor: setEvents on a pending watch wakes the loop to poll for the new events", async () => {
  const [readEnd, writeEnd] = makePipe();
  const revents: number[] = [];
  reactor.watch(writeEnd, 0, (events) => {
    revents.push(events);
    reactor.unwatch(writeEnd);
  });
  await settle();
  const callsBefore = revents.length;
  reactor.setEvents(writeEnd, POLL.OUT);
  await reactor.idle();
  reactor.setEvents(writeEnd, POLL.IN);
  assertEquals([callsBefore, revents.length, reactor.size], [0, 1, 0]);
  assert((revents[0] & POLL.OUT) !== 0, `revents ${revents[0]} lacks POLL.OUT`);
  closeFd(readEnd);
  closeFd(writeEnd);
});

Deno.test("Reactor: close() during a pending poll defers closing the fd until that poll has returned", async () => {
  const [readEnd, writeEnd] = makePipe();
  let calls = 0;
  reactor.watch(readEnd, POLL.IN, () => calls++);
  await settle();
  reactor.close(readEnd);
  const openAfterClose = isOpen(readEnd);
  const sizeAfterClose = reactor.size;
  await reactor.idle();
  assertEquals([openAfterClose, sizeAfterClose, isOpen(readEnd), calls], [true, 0, false, 0]);
  closeFd(writeEnd);
});

Deno.test("Reactor: an fd closed behind the reactor's back reports POLL.NVAL to its callback", async () => {
  const [readEnd, writeEnd] = makePipe();
  closeFd(readEnd);
  closeFd(writeEnd);
  const revents: number[] = [];
  reactor.watch(readEnd, POLL.IN, (events) => {
    revents.push(events);
    reactor.unwatch(readEnd);
  });
  await reactor.idle();
  assertEquals([revents.length, reactor.size], [1, 0]);
  assert((revents[0] & POLL.NVAL) !== 0, `revents ${revents[0]} lacks POLL.NVAL`);
});

Deno.test("Reactor: a callback that throws is logged and unwatched (not closed), and the other fds are still served", async () => {
  const [badRead, badWrite] = makePipe();
  const [goodRead, goodWrite] = makePipe();
  let badCalls = 0;
  reactor.watch(badRead, POLL.IN, () => {
    // Called again only if the reactor kept the watch: fail on the count below instead of spinning.
    if (++badCalls > 1) return reactor.unwatch(badRead);
    throw new Error("misbehaving callback");
  });
  const received: string[] = [];
  collect(goodRead, received);
  write(badWrite, "x");
  write(goodWrite, "still served");
  closeFd(goodWrite);
  const logged: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    await reactor.idle();
  } finally {
    console.error = consoleError;
  }
  assertEquals([badCalls, received.join(""), reactor.size, isOpen(badRead)], [1, "still served", 0, true]);
  assertEquals(logged.length, 1);
  assert(String(logged[0][0]).includes(`fd ${badRead}`), String(logged[0][0]));
  assert(logged[0][1] instanceof Error && logged[0][1].message === "misbehaving callback");
  closeFd(badRead);
  closeFd(badWrite);
});

Deno.test("Reactor: a child's exit fd wakes its callback once, only after the child exits, leaving no fd", async () => {
  const [stdinRead, stdinWrite] = makePipe();
  const [outRead, outWrite] = makePipe();
  const pipes = fdIdentities("self", [stdinRead, outRead]);
  const pid = spawnChild({
    argv: ["sh", "-c", "cat >/dev/null; exit 7"],
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    cwd: "/tmp",
    stdio: { stdin: stdinRead, stdout: outWrite, stderr: outWrite },
  });
  closeFd(stdinRead);
  closeFd(outWrite);
  const exitFd = PROCESS.exitFd(pid);
  const exitWatch = fdIdentity(exitFd);
  const statuses: (ExitStatus | null)[] = [];
  reactor.watch(exitFd, POLL.IN, () => {
    statuses.push(reap(pid));
    reactor.close(exitFd);
  });
  await settle();
  // cat cannot finish while this process holds its stdin's write end.
  const callsWhileRunning = statuses.length;
  closeFd(stdinWrite);
  await reactor.idle();
  closeFd(outRead);
  assertEquals([callsWhileRunning, statuses], [0, [{ code: 7, signal: null }]]);
  // The exit fd's number may be another file's by now; the same watch of the reaped child (pidfd:-1) may not.
  const exitFdNow = fdIdentity(exitFd);
  assert(exitFdNow !== exitWatch && exitFdNow !== "pidfd:-1", `the exit fd is still open: ${exitFdNow}`);
  assertEquals([pipes.size, reactor.size, heldFds(pipes)], [2, 0, []]);
});
