/**
 * Commands as agents drive them, through the SDK client: write_stdin returns
 * once the program has answered, a cancelled call ends the command it
 * started, and the session's commands are listed so a lost id can be found.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, type TestServer } from "./harness.ts";

/** The bound for one write_stdin to a program that answers at once (the settle interval is 200 ms). */
const ANSWERED_WITHIN_MS = 1000;
/** Five REPL steps: about five settle intervals, far below five default yields (50 s). */
const FIVE_STEPS_WITHIN_MS = 5000;

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Processes in the process group `pgid` (pgrep exits 1 when there are none). */
async function groupMembers(pgid: number): Promise<string[]> {
  const out = await new Deno.Command("pgrep", { args: ["-g", String(pgid)], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line !== "");
}

/** Polls until the REPL shows its prompt; returns everything it printed, starting with `seen`. */
async function untilPrompt(server: TestServer, id: string, prompt: string, seen: string): Promise<string> {
  for (let tries = 0; tries < 50 && !seen.endsWith(prompt); tries++) {
    seen += (await server.call("write_stdin", { command_id: id, yield_time_ms: 1000 })).structured.stdout;
  }
  return seen;
}

Deno.test("write_stdin to cat with the default yield returns the echo in well under a second", async () => {
  await using server = await startServer();
  const cat = await server.call("exec_command", { cmd: "cat", yield_time_ms: 200 });
  assertEquals(cat.structured.status, "running");
  const started = performance.now();
  const echoed = await server.call("write_stdin", { command_id: cat.structured.command_id, chars: "ping\n" });
  const elapsed = performance.now() - started;
  assertEquals([echoed.structured.status, echoed.structured.stdout], ["running", "ping\n"]);
  assert(elapsed < ANSWERED_WITHIN_MS, `write_stdin took ${Math.round(elapsed)} ms`);
});

Deno.test("write_stdin: a TTY Python REPL session of five inputs takes about five settle intervals, not fifty seconds", async () => {
  await using server = await startServer();
  const python = await server.call("exec_command", { cmd: "python3 -q -i", tty: true, yield_time_ms: 500 });
  const id = python.structured.command_id;
  assert((await untilPrompt(server, id, ">>> ", python.structured.stdout)).endsWith(">>> "));
  const steps: [string, string][] = [
    ["6 * 7", "42"],
    ["x = [i * i for i in range(5)]", ""],
    ["x", "[0, 1, 4, 9, 16]"],
    ["len('workcell')", "8"],
    ["sum(x)", "30"],
  ];
  const started = performance.now();
  for (const [input, expected] of steps) {
    const result = await server.call("write_stdin", { command_id: id, chars: `${input}\r` });
    const lines = (result.structured.stdout as string).split("\r\n");
    assertEquals(lines, [input, ...(expected ? [expected] : []), ">>> "], `answer to ${input}`);
  }
  const elapsed = performance.now() - started;
  assert(elapsed < FIVE_STEPS_WITHIN_MS, `five inputs took ${Math.round(elapsed)} ms`);
  await server.call("kill_command", { command_id: id, signal: "KILL" });
});

Deno.test("a cancelled exec_command kills and reaps its process group; its id is listed and its output readable", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const abort = new AbortController();
  const call = server.client.callTool(
    { name: "exec_command", arguments: { cmd: "echo started; sleep 600 & sleep 600; wait", yield_time_ms: 300_000 } },
    undefined,
    { signal: abort.signal },
  );
  let listed;
  for (let tries = 0; tries < 100; tries++) {
    const commands = (await server.call("check_exec_environment", {})).structured.commands;
    listed = commands.find((command: { stdout_bytes: number }) => command.stdout_bytes > 0);
    if (listed) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert(listed, "the running command is listed");
  assertEquals([listed.status, listed.cmd, listed.tty], [
    "running",
    "echo started; sleep 600 & sleep 600; wait",
    false,
  ]);
  assert((await groupMembers(listed.pid)).length >= 3, "the shell and two sleeps run");
  const info = (await server.call("server_info", {})).structured.commands;
  assertEquals([info.count, info.running, info.ids], [1, 1, [listed.command_id]]);

  abort.abort();
  const refused = await call.then(() => null, (error: Error) => error);
  assert(refused !== null, "the cancelled call does not resolve");
  let after;
  for (let tries = 0; tries < 100; tries++) {
    after = (await server.call("check_exec_environment", {})).structured.commands[0];
    if (after.status === "exited") break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assertEquals([after.command_id, after.status, after.signal], [listed.command_id, "exited", "SIGKILL"]);
  assert(!isRunning(listed.pid), "the leader is gone");
  for (let tries = 0; tries < 40 && (await groupMembers(listed.pid)).length > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assertEquals(await groupMembers(listed.pid), [], "nothing of its process group is left");
  const output = await server.call("read_output", { output_ref: `command:${listed.command_id}:stdout` });
  assertEquals([output.structured.data, output.structured.command_status], ["started\n", "exited"]);
  assert(server.stderr().includes(`cancelled the call waiting for command ${listed.command_id}`), server.stderr());
  const poll = await server.call("write_stdin", { command_id: listed.command_id });
  assertEquals([poll.structured.status, poll.structured.signal], ["exited", "SIGKILL"]);
});
