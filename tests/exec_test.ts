/**
 * exec_command, write_stdin, kill_command and read_output through the SDK
 * client against the real server.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, type TestServer } from "./harness.ts";

/** Linux-only: these find a command's fds and state in /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";

/** The server's pid, as the parent of a command's shell. */
async function serverPid(server: TestServer): Promise<number> {
  const result = await server.call("exec_command", { cmd: "echo $PPID" });
  return Number(result.structured.stdout.trim());
}

/** What the server's fds point at (pipes and anon inodes with their inode numbers). */
function openFdTargets(pid: number): string[] {
  return [...Deno.readDirSync(`/proc/${pid}/fd`)].map((entry) => {
    try {
      return Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
    } catch {
      return "closed";
    }
  });
}

/**
 * Command fds (pipes, pidfds, PTY masters and slaves) open now that were not
 * open in `before`. Compared by target, not number: Deno moves its own
 * pipes between fd numbers.
 */
function leakedFds(pid: number, before: string[]): string[] {
  return openFdTargets(pid).filter((target) => !before.includes(target) && /pipe|pidfd|ptmx|\/dev\/pts/.test(target));
}

/** Gone, or dead and reparented to init (which reaps it). */
function isDead(pid: number, notChildOf: number): boolean {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return true;
  }
  const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return state === "Z" && Number(parent) !== notChildOf;
}

/** Polls with write_stdin until the command exits; returns the concatenated stdout. */
async function pollToExit(server: TestServer, first: CallResult): Promise<{ stdout: string; last: CallResult }> {
  let result = first;
  let stdout = first.structured.stdout;
  while (result.structured.status === "running") {
    assertEquals(result.structured.next_action.tool, "write_stdin");
    result = await server.call("write_stdin", { ...result.structured.next_action.arguments, yield_time_ms: 2000 });
    assert(!result.isError, result.text);
    stdout += result.structured.stdout;
  }
  return { stdout, last: result };
}

Deno.test("exec_command: a quick command exits with code, both streams, no next action", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  await Deno.mkdir(`${server.workspace}/sub`);
  const result = await server.call("exec_command", { cmd: "echo out; echo err >&2; pwd; exit 3", workdir: "sub" });
  assert(!result.isError, result.text);
  const data = result.structured;
  assertEquals([data.status, data.exit_code, data.signal], ["exited", 3, null]);
  assertEquals(data.stdout, `out\n${server.workspace}/sub\n`);
  assertEquals(data.stderr, "err\n");
  assertEquals([data.next_action, data.next_actions, data.stdout_truncated], [null, [], false]);
  assert(result.text.includes("exited with code 3") && result.text.includes("--- stderr ---"));
});

Deno.test("exec_command: children get the anti-hang environment, and the request's env", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const result = await server.call("exec_command", {
    cmd: "echo $TERM $NO_COLOR $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $CI $LC_ALL $FOO; test -t 0 || echo notty",
    env: { FOO: "bar" },
  });
  assertEquals(result.structured.stdout, "dumb 1 cat cat 0 1 C.UTF-8 bar\nnotty\n");
});

Deno.test("exec_command: workdir is confined; a missing program is COMMAND_NOT_FOUND", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const outside = await server.call("exec_command", { cmd: "pwd", workdir: "../" });
  assertEquals(outside.structured.error.code, "PATH_OUTSIDE_WORKSPACE");
  const missing = await server.call("exec_command", { cmd: "no-such-program-xyz --flag" });
  assertEquals(missing.structured.error.code, "COMMAND_NOT_FOUND");
  const failing = await server.call("exec_command", { cmd: "false" });
  assertEquals([failing.isError, failing.structured.exit_code], [false, 1]);
});

Deno.test("exec_command: a long-running command is polled to completion with write_stdin; progress is sent", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const progress: number[] = [];
  const raw = await server.client.callTool(
    { name: "exec_command", arguments: { cmd: "for i in 1 2 3 4; do echo $i; sleep 0.6; done", yield_time_ms: 1300 } },
    undefined,
    { onprogress: (notification) => progress.push(notification.progress) },
  );
  const first = { isError: false, text: "", content: [], structured: raw.structuredContent } as CallResult;
  assertEquals(first.structured.status, "running");
  assertEquals(first.structured.next_action, {
    tool: "write_stdin",
    arguments: { command_id: first.structured.command_id, chars: "", yield_time_ms: 1300 },
  });
  assert(progress.length >= 1, "no progress notification while waiting");
  const { stdout, last } = await pollToExit(server, first);
  assertEquals(stdout, "1\n2\n3\n4\n");
  assertEquals(last.structured.exit_code, 0);
  const again = await server.call("write_stdin", { command_id: first.structured.command_id });
  assertEquals([again.structured.status, again.structured.stdout], ["exited", ""]);
  const write = await server.call("write_stdin", { command_id: first.structured.command_id, chars: "x" });
  assertEquals(write.structured.error.code, "COMMAND_EXITED");
});

Deno.test("write_stdin: interactive bc and python3 -i, then close stdin", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const bc = await server.call("exec_command", { cmd: "bc -q", yield_time_ms: 200 });
  const id = bc.structured.command_id;
  const answer = await server.call("write_stdin", { command_id: id, chars: "6*7\n", yield_time_ms: 500 });
  assertEquals(answer.structured.stdout, "42\n");
  const closed = await server.call("write_stdin", { command_id: id, close_stdin: true, yield_time_ms: 3000 });
  assertEquals([closed.structured.status, closed.structured.exit_code, closed.structured.stdin_open], [
    "exited",
    0,
    false,
  ]);

  const python = await server.call("exec_command", { cmd: "python3 -i -q", yield_time_ms: 1000 });
  const pid = python.structured.command_id;
  const printed = await server.call("write_stdin", { command_id: pid, chars: "print(2**10)\n", yield_time_ms: 1000 });
  assertEquals(printed.structured.stdout, "1024\n");
  const done = await server.call("write_stdin", { command_id: pid, chars: "", close_stdin: true, yield_time_ms: 3000 });
  assertEquals(done.structured.status, "exited");
});

Deno.test("exec_command tty:true: a real terminal, 80x24, Ctrl-D closes input", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const result = await server.call("exec_command", {
    cmd: "test -t 0 && test -t 1 && test -t 2 && echo tty $TERM && stty size && tty",
    tty: true,
  });
  assert(!result.isError, result.text);
  const lines = result.structured.stdout.split("\r\n");
  assertEquals(lines.slice(0, 2), ["tty xterm-256color", "24 80"]);
  assert(lines[2].startsWith("/dev/pts/"), lines[2]);
  assertEquals([result.structured.tty, result.structured.stderr], [true, ""]);

  const cat = await server.call("exec_command", { cmd: "cat", tty: true, yield_time_ms: 300 });
  const echoed = await server.call("write_stdin", {
    command_id: cat.structured.command_id,
    chars: "hi\n",
    yield_time_ms: 300,
  });
  assertEquals(echoed.structured.stdout, "hi\r\nhi\r\n"); // the terminal's echo, then cat's copy
  const eof = await server.call("write_stdin", {
    command_id: cat.structured.command_id,
    close_stdin: true,
    yield_time_ms: 3000,
  });
  assertEquals([eof.structured.status, eof.structured.exit_code], ["exited", 0]);

  // Ctrl-C reaches the foreground job through the terminal's line discipline.
  const sleeper = await server.call("exec_command", { cmd: "exec sleep 30", tty: true, yield_time_ms: 300 });
  const interrupted = await server.call("write_stdin", {
    command_id: sleeper.structured.command_id,
    chars: "\u0003",
    yield_time_ms: 3000,
  });
  assertEquals([interrupted.structured.status, interrupted.structured.signal], ["exited", "SIGINT"]);
});

// The fd check runs against the server process, which only this test talks to (test files share a process).
Deno.test("kill_command: the whole process tree dies, nothing leaks", { ignore: LINUX_ONLY }, async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const pid = await serverPid(server);
  const before = openFdTargets(pid);
  const tree = await server.call("exec_command", {
    cmd: "sh -c 'sleep 60 & sleep 60 & wait' & sleep 60 & echo $$; wait",
    yield_time_ms: 500,
  });
  assertEquals(tree.structured.status, "running");
  const leader = Number(tree.structured.stdout.trim());
  let group: number[] = [];
  for (let tries = 0; tries < 100 && group.length < 5; tries++) {
    const listed = await new Deno.Command("pgrep", { args: ["-g", String(leader)] }).output();
    group = new TextDecoder().decode(listed.stdout).trim().split("\n").map(Number);
    if (group.length < 5) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert(group.length >= 5, `expected the shells and three sleeps, got ${group}`);
  const killed = await server.call("kill_command", { command_id: tree.structured.command_id });
  assertEquals([killed.structured.status, killed.structured.signal], ["exited", "SIGTERM"]);
  // Orphans got SIGKILL with the leader's exit; dying takes them a moment on a loaded machine.
  for (let tries = 0; tries < 40 && !group.every((member) => isDead(member, pid)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const member of group) assert(isDead(member, pid), `pid ${member} survived`);
  for (const signal of ["INT", "HUP", "KILL"]) {
    const sleeper = await server.call("exec_command", { cmd: "exec sleep 60", yield_time_ms: 0 });
    const result = await server.call("kill_command", { command_id: sleeper.structured.command_id, signal });
    assertEquals(result.structured.signal, `SIG${signal}`);
  }
  const tty = await server.call("exec_command", { cmd: "sleep 60 & sleep 60", tty: true, yield_time_ms: 0 });
  await server.call("kill_command", { command_id: tty.structured.command_id, signal: "KILL" });
  // A close the reactor deferred past its pending poll lands a moment later.
  for (let tries = 0; tries < 20 && leakedFds(pid, before).length > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assertEquals(leakedFds(pid, before), []);
  const unknown = await server.call("kill_command", { command_id: "c999-zzzz" });
  assertEquals(unknown.structured.error.code, "UNKNOWN_COMMAND");
});

Deno.test("read_output: a truncated preview points at the omitted bytes; pages are exact", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const result = await server.call("exec_command", { cmd: "seq 1 30000", max_output_bytes: 1000 });
  const data = result.structured;
  assert(data.stdout_truncated && data.stdout.startsWith("1\n2\n") && data.stdout.endsWith("29999\n30000\n"));
  const action = data.next_action;
  assertEquals(action.tool, "read_output");
  assertEquals(action.arguments.output_ref, `command:${data.command_id}:stdout`);
  const expected = new TextEncoder().encode(Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join(""));
  assertEquals(data.stdout_total_bytes, expected.length);
  let offset = 0;
  const pieces: string[] = [];
  for (;;) {
    const page = await server.call("read_output", { output_ref: action.arguments.output_ref, offset, limit: 65536 });
    assertEquals([page.structured.evicted_gap_bytes, page.structured.omitted_bytes], [0, 0]);
    pieces.push(page.structured.data);
    offset = page.structured.next_offset;
    if (page.structured.eof) break;
  }
  assertEquals(pieces.join(""), new TextDecoder().decode(expected));
  const bad = await server.call("read_output", { output_ref: "command:nope:stdout" });
  assertEquals(bad.structured.error.code, "OUTPUT_REF_INVALID");
  const malformed = await server.call("read_output", { output_ref: `command:${data.command_id}:stdin` });
  assertEquals(malformed.structured.error.code, "OUTPUT_REF_INVALID");
  const small = await server.call("exec_command", { cmd: "echo small" });
  assertEquals(small.structured.next_actions, []);
});

Deno.test("read_output: UTF-8 pages never split a character", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const result = await server.call("exec_command", { cmd: "for i in $(seq 1 400); do printf 'é€😀'; done" });
  const ref = `command:${result.structured.command_id}:stdout`;
  const page = await server.call("read_output", { output_ref: ref, offset: 1, limit: 9 });
  // offset 1 is inside "é": the page starts at the next character and ends on a whole one.
  assertEquals([page.structured.offset, page.structured.data], [2, "€😀"]);
  assertEquals(page.structured.next_offset, 9);
});

Deno.test("limits: 32 running commands, then COMMAND_LIMIT naming what to free", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const ids: string[] = [];
  for (let i = 0; i < 32; i++) {
    const result = await server.call("exec_command", { cmd: "sleep 60", yield_time_ms: 0 });
    assert(!result.isError, result.text);
    ids.push(result.structured.command_id);
  }
  const refused = await server.call("exec_command", { cmd: "true" });
  assertEquals(refused.structured.error.code, "COMMAND_LIMIT");
  assert(refused.text.includes(ids[0]) && refused.text.includes("kill_command"), refused.text);
  await server.call("kill_command", { command_id: ids[0], signal: "KILL" });
  const accepted = await server.call("exec_command", { cmd: "true" });
  assertEquals(accepted.structured.status, "exited");
});

Deno.test("200 short commands, 32 at a time, all exact; old ones pruned with COMMAND_PRUNED", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const results: CallResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < 200) {
      const index = next++;
      results[index] = await server.call("exec_command", { cmd: `echo ${index}` });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  results.forEach((result, index) => {
    assert(!result.isError, result.text);
    assertEquals([result.structured.exit_code, result.structured.stdout], [0, `${index}\n`]);
  });
  const pruned = await server.call("write_stdin", { command_id: results[0].structured.command_id });
  assertEquals(pruned.structured.error.code, "COMMAND_PRUNED");
  const kept = await server.call("write_stdin", { command_id: results[199].structured.command_id });
  assertEquals(kept.structured.status, "exited");
});

Deno.test("200 commands at once: each is exact or an honest COMMAND_LIMIT; the server stays healthy", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const burst = await Promise.all(
    Array.from({ length: 200 }, (_, index) => server.call("exec_command", { cmd: `echo ${index}` })),
  );
  let succeeded = 0;
  burst.forEach((result, index) => {
    if (result.isError) assertEquals(result.structured.error.code, "COMMAND_LIMIT");
    else {
      succeeded++;
      assertEquals(result.structured.stdout, `${index}\n`);
    }
  });
  assert(succeeded >= 32, `only ${succeeded} of 200 ran`);
  const after = await server.call("exec_command", { cmd: "echo ok" });
  assertEquals(after.structured.stdout, "ok\n");
});

Deno.test("disconnect: closing the client kills the session's commands", { ignore: LINUX_ONLY }, async () => {
  const server = await startServer({ args: ["--mode", "trusted"] });
  const pid = await serverPid(server);
  const result = await server.call("exec_command", { cmd: "echo $$; exec sleep 60", yield_time_ms: 300 });
  const child = Number(result.structured.stdout.trim());
  assert(!isDead(child, pid));
  await server.close();
  const deadline = Date.now() + 5000;
  while (!isDead(child, pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert(isDead(child, pid), `command ${child} outlived the server`);
});

Deno.test("exec_command: a NUL byte in cmd or env is INVALID_ARGUMENT", async () => {
  await using server = await startServer();
  const cmd = await server.call("exec_command", { cmd: "echo a\0b" });
  assertEquals([cmd.structured.error.code, cmd.structured.error.details.field], ["INVALID_ARGUMENT", "cmd"]);
  const env = await server.call("exec_command", { cmd: "true", env: { A: "x\0y" } });
  assertEquals(env.structured.error.code, "INVALID_ARGUMENT");
});
