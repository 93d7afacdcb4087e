/**
 * Commands started, polled and killed by the hundred (1,000 under
 * RELIABILITY_FULL=1), pipes and PTYs, every signal, each with a background
 * grandchild: afterwards the server process has no child left (no zombie),
 * no process of any command survives anywhere, and the server has no fd
 * more than before (/proc/<server>/fd counted, and compared by target).
 */
import { assert, assertEquals } from "../../testing/assert.ts";
import { type CallResult, startServer, type TestServer } from "../harness.ts";
import { children, eventually, fdTargets } from "./proc.ts";
import { scale } from "../../testing/scale.ts";

const COMMANDS = scale(100, 1000);
/** Commands alive at once (the server allows 32 per process). */
const CONCURRENCY = 8;
const SIGNALS = ["TERM", "KILL", "INT", "HUP"];
/** Fds Deno may open lazily for itself during the run (a worker's epoll, a timer): never pipes, pidfds or PTYs. */
const FD_SLACK = 4;
const COMMAND_FD = /pipe|pidfd|ptmx|\/dev\/pts/;
/** A sleep argument unique to this run, so a survivor anywhere on the machine is recognised by its cmdline. */
const SLEEP = `30.${Math.floor(Math.random() * 1e6)}`;

/** Processes anywhere whose command line carries this run's SLEEP (orphans reparented away from the server). */
function survivors(): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).includes(SLEEP)) found.push(Number(entry.name));
    } catch { /* exited meanwhile */ }
  }
  return found;
}

/** Polls with write_stdin until `done(stdout so far, last result)` holds. */
async function pollUntil(
  server: TestServer,
  first: CallResult,
  done: (stdout: string, last: CallResult) => boolean,
): Promise<{ stdout: string; last: CallResult }> {
  let last = first;
  let stdout = first.structured.stdout;
  for (let polls = 0; !done(stdout, last); polls++) {
    assert(polls < 200, `still waiting after ${polls} polls: ${last.text}`);
    last = await server.call("write_stdin", { command_id: first.structured.command_id, yield_time_ms: 100 });
    assert(!last.isError, last.text);
    stdout += last.structured.stdout;
  }
  return { stdout, last };
}

/** Starts command `i`, waits for its first line, then kills it (or lets it exit by itself) and checks it ended. */
async function lifecycle(server: TestServer, i: number): Promise<void> {
  const tty = i % 4 === 0;
  const selfExit = i % 5 === 1;
  const cmd = selfExit ? `echo start-${i}` : `echo start-${i}; sleep ${SLEEP} & exec sleep ${SLEEP}`;
  const started = await server.call("exec_command", { cmd, tty, yield_time_ms: 0 });
  assert(!started.isError, `${i}: ${started.text}`);
  const { last } = await pollUntil(server, started, (stdout) => stdout.includes(`start-${i}`));
  if (selfExit) {
    await pollUntil(server, last, (_, result) => result.structured.status === "exited");
    return;
  }
  const killed = await server.call("kill_command", {
    command_id: started.structured.command_id,
    signal: SIGNALS[i % SIGNALS.length],
  });
  assert(!killed.isError, `${i}: ${killed.text}`);
  await pollUntil(server, killed, (_, result) => result.structured.status === "exited");
}

Deno.test(`${COMMANDS} commands started, polled and killed: no zombie, no child, no fd left`, async () => {
  // Trusted mode: the lifecycle commands use shell syntax, which the safe-mode gate refuses (tests/policy_test.ts).
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const pid = Number((await server.call("exec_command", { cmd: "echo $PPID" })).structured.stdout.trim());
  assert(await eventually(() => children(pid).length === 0), "a child of the probe is left");
  const before = fdTargets(pid);

  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < COMMANDS) await lifecycle(server, next++);
  }));

  const settled = await eventually(() => children(pid).length === 0, 10_000);
  assert(settled, `children left: ${JSON.stringify(children(pid))}`);
  assert(await eventually(() => survivors().length === 0), `orphans survived: ${survivors()}`);
  const leaked = () => fdTargets(pid).filter((target) => !before.includes(target) && COMMAND_FD.test(target));
  await eventually(() => leaked().length === 0, 5000);
  assertEquals(leaked(), []);
  const after = fdTargets(pid);
  assert(
    after.length <= before.length + FD_SLACK,
    `fds: ${before.length} before, ${after.length} after: ${after.filter((t) => !before.includes(t))}`,
  );
  const alive = await server.call("exec_command", { cmd: "echo ok" });
  assertEquals(alive.structured.stdout, "ok\n");
});
