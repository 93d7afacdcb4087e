/**
 * The audit trail end to end (--audit-log): a session exercising every
 * tool writes exactly one valid event per call (checked against the
 * committed schemas/audit-event.json); no secret and no content ever
 * reaches the log; concurrent HTTP sessions write only whole lines;
 * rotation keeps its bound; an unwritable log leaves the server serving
 * and says so, unless --audit-required; a log commands could write is
 * warned about or refused; the summary reads it back.
 */
import * as path from "node:path";
import { Ajv } from "ajv";
import formats from "ajv-formats";
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, NOBODY, serverCommand, startServer, tempWorkspace, unprivileged } from "./harness.ts";
import { startHttpServer, TEST_TOKEN } from "./http_harness.ts";
import { commitAll, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { encodeFixture, makeBitmap } from "../testing/image_fixtures.ts";
import { TOOL_NAMES } from "../src/catalog.ts";
import { parseArgs } from "../src/config.ts";
import { AUDIT_LIMITS } from "../src/audit/limits.ts";
import type { AuditEvent, ToolCallEvent } from "../src/audit/event.ts";

const SCHEMA = JSON.parse(await Deno.readTextFile(new URL("../schemas/audit-event.json", import.meta.url)));
const ajv = new Ajv({ strict: false, allErrors: true });
formats.default(ajv);
const validateEvent = ajv.compile(SCHEMA);

/** A directory outside every workspace for the log; removed at the end. */
async function logDir(): Promise<{ dir: string; log: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-audit-log-" }));
  return {
    dir,
    log: path.join(dir, "audit.jsonl"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** The log's lines, each checked against the committed schema. */
async function readEvents(file: string): Promise<AuditEvent[]> {
  const text = await Deno.readTextFile(file);
  assert(text.endsWith("\n"), "the log ends with a whole line");
  return text.trimEnd().split("\n").map((line) => {
    const event = JSON.parse(line);
    assert(validateEvent(event), `${line}\n${JSON.stringify(validateEvent.errors)}`);
    return event as AuditEvent;
  });
}

/** Waits until `done` holds of the log (the session_end line is written as the server exits). */
async function eventually(file: string, done: (events: AuditEvent[]) => boolean): Promise<AuditEvent[]> {
  for (let i = 0; i < 100; i++) {
    const events = await readEvents(file).catch(() => []);
    if (done(events)) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return await readEvents(file);
}

const calls = (events: AuditEvent[]) => events.filter((event): event is ToolCallEvent => event.event === "tool_call");
const ended = (events: AuditEvent[]) => events.some((event) => event.event === "session_end");

const CONTENT = "content-marker-3f9a";
const SERVER_SECRET = "server-secret-value-8c1d2e";
const ENV_SECRET = "env-value-marker-77ab";

Deno.test("audit: a session using every tool writes one valid event per call, with its facts and no content", async () => {
  await using logs = await logDir();
  const workspace = await tempWorkspace();
  await initRepo(workspace);
  await writeFiles(workspace, {
    "notes.txt": `first line ${CONTENT}\n`,
    "pic.png": await encodeFixture("png", makeBitmap(4, 4, () => [255, 0, 0, 255])),
  });
  await commitAll(workspace, "initial");
  await using server = await startServer({
    workspace,
    args: ["--audit-log", logs.log],
    clientCapabilities: { elicitation: {} },
    onElicit: () => ({ action: "accept", content: { network: true } }),
  });
  const patch =
    `*** Begin Patch\n*** Add File: added.txt\n+${CONTENT}\n+two\n*** Update File: notes.txt\n@@\n-first line ${CONTENT}\n+changed\n*** End Patch\n`;
  const started = await server.call("exec_command", { cmd: "cat", yield_time_ms: 100 });
  const id = started.structured.command_id;
  const script: [string, Record<string, unknown>][] = [
    ["server_info", {}],
    ["check_exec_environment", {}],
    ["read_file", { path: "notes.txt" }],
    ["list_dir", {}],
    ["list_files", {}],
    ["search_text", { pattern: "first" }],
    ["apply_patch", { patch }],
    ["write_stdin", { command_id: id, chars: `${CONTENT}\n`, yield_time_ms: 500 }],
    ["read_output", { output_ref: `command:${id}:stdout` }],
    ["kill_command", { command_id: id }],
    ["exec_command", { cmd: "curl https://example.com" }],
    ["git_status", {}],
    ["git_diff", {}],
    ["git_log", {}],
    ["git_show", { rev: "HEAD" }],
    ["git_blame", { path: "notes.txt" }],
    ["request_permissions", { permissions: ["network"], reason: "fetch" }],
    ["view_image", { path: "pic.png" }],
    ["exec_command", { cmd: `echo ${CONTENT}` }],
    ["read_file", { path: "../outside" }],
    ["read_file", { nope: 1 }],
    ["no_such_tool", {}],
  ];
  const answers = new Map<string, CallResult>();
  for (const [tool, args] of script) {
    if (tool === "no_such_tool") await server.call(tool, args).catch(() => {}); // a JSON-RPC error, no result
    else answers.set(tool, await server.call(tool, args));
  }
  assertEquals(new Set(["exec_command", ...script.map(([tool]) => tool)]).size, TOOL_NAMES.length + 1);
  await server.close();

  const events = await eventually(logs.log, ended);
  assertEquals(events.map((event) => event.event), [
    "session_start",
    ...Array(script.length + 1).fill("tool_call"),
    "session_end",
  ]);
  const [start, end] = [events[0], events.at(-1)!];
  assert(start.event === "session_start" && end.event === "session_end");
  assertEquals([start.client?.name, start.mode, start.workspace, start.transport], [
    "workcell-e2e",
    "safe",
    workspace,
    "stdio",
  ]);
  assertEquals(end.calls, script.length + 1);
  assert(new Set(events.map((event) => event.session)).size === 1);
  const byTool = calls(events);
  assertEquals(byTool.map((event) => event.tool), ["exec_command", ...script.map(([tool]) => tool)]);
  const outcome = (tool: string, n = 0) => byTool.filter((event) => event.tool === tool)[n];

  // Per-tool facts.
  assertEquals(outcome("apply_patch").facts.patch?.files, [
    { op: "add", path: "added.txt", moved_to: null, added: 2, removed: 0 },
    { op: "update", path: "notes.txt", moved_to: null, added: 1, removed: 1 },
  ]);
  assertEquals((outcome("apply_patch").arguments as { patch: { bytes: number } }).patch.bytes, patch.length);
  const exec = outcome("exec_command");
  assertEquals([exec.facts.exec?.gate?.decision, exec.facts.exec?.mode, exec.facts.command?.status], [
    "allowed",
    "safe",
    "running",
  ]);
  // The sandbox the command ran under is the session's report for commands (check_exec_environment).
  assertEquals(exec.facts.exec?.sandbox, answers.get("check_exec_environment")!.structured.sandbox.commands);
  assert(exec.facts.exec?.sandbox?.layers.includes("capabilities"), JSON.stringify(exec.facts.exec));
  assertEquals((outcome("write_stdin").arguments as { chars: unknown }).chars, { bytes: CONTENT.length + 1 });
  assertEquals(outcome("write_stdin").facts.command?.stdout_bytes, CONTENT.length + 1);
  assertEquals(outcome("kill_command").facts.command?.signal, "SIGTERM");
  assertEquals(outcome("request_permissions").facts.permissions?.granted, ["network"]);
  const refused = outcome("exec_command", 1);
  assertEquals([refused.outcome, refused.refusal?.rule, refused.facts.exec?.gate?.decision], [
    "COMMAND_BLOCKED",
    "network.command",
    "refused",
  ]);
  assertEquals([refused.facts.exec?.grants, outcome("exec_command", 2).facts.exec?.grants], [[], ["network"]]);
  assertEquals(outcome("read_file", 1).refusal?.rule, "PATH_OUTSIDE_WORKSPACE");
  assertEquals(outcome("read_file", 2).outcome, "INVALID_ARGUMENT");
  assertEquals(outcome("no_such_tool").outcome, "INVALID_ARGUMENT");
  for (const call of byTool) assert(call.duration_ms >= 0 && !call.cancelled, JSON.stringify(call));

  // File contents, command output and stdin never reach the log; the command line itself does.
  const text = await Deno.readTextFile(logs.log);
  assertEquals(text.split(CONTENT).length - 1, 1, "only the echo command line names the marker");
  assert(!text.includes("iVBOR"), "no image data");
  await Deno.remove(workspace, { recursive: true });
});

Deno.test("audit: secrets in the server's environment and in exec_command's env never appear", async () => {
  await using logs = await logDir();
  await using server = await startServer({
    args: ["--audit-log", logs.log, "--mode", "trusted"],
    env: { MY_API_TOKEN: SERVER_SECRET, WORKCELL_AUTH_TOKEN: `${SERVER_SECRET}-2` },
  });
  await server.call("exec_command", { cmd: "printenv", env: { PLAIN: ENV_SECRET } });
  await server.call("exec_command", { cmd: "true", env: { DB_PASSWORD: ENV_SECRET } });
  await server.call("exec_command", { cmd: `echo ${SERVER_SECRET} --token ${ENV_SECRET} API_KEY=${ENV_SECRET}` });
  await server.call("search_text", { pattern: SERVER_SECRET });
  await server.call("read_file", { path: "x", token: ENV_SECRET });
  await server.close();
  const events = await eventually(logs.log, ended);
  assertEquals(calls(events).length, 5);
  const text = await Deno.readTextFile(logs.log);
  assert(!text.includes(SERVER_SECRET) && !text.includes(ENV_SECRET), text);
  assertEquals((calls(events)[0].arguments as { env: unknown }).env, { PLAIN: "[redacted]" });
  assertEquals(
    (calls(events)[2].arguments as { cmd: string }).cmd,
    "echo [redacted] --token [redacted] API_KEY=[redacted]",
  );
});

Deno.test("audit: two HTTP sessions calling concurrently write only whole lines, each call once", async () => {
  await using logs = await logDir();
  await using server = await startHttpServer({ token: TEST_TOKEN, args: ["--audit-log", logs.log] });
  const clients = [await server.connect({ name: "one" }), await server.connect({ name: "two" })];
  const PER_CLIENT = 40;
  await Promise.all(
    clients.map((client, n) =>
      Promise.all(
        Array.from({ length: PER_CLIENT }, (_, i) =>
          i % 4 === 0
            ? client.call("exec_command", { cmd: `echo ${n}-${i}` })
            : client.call("list_dir", { path: ".", depth: 1 })),
      )
    ),
  );
  for (const client of clients) await client.close();
  await server.stop();
  const events = await eventually(logs.log, (all) => all.filter((event) => event.event === "session_end").length === 2);
  const sessions = new Map<string, string>();
  for (const event of events) if (event.event === "session_start") sessions.set(event.session, event.client!.name);
  assertEquals([...sessions.values()].sort(), ["one", "two"]);
  for (const id of sessions.keys()) {
    assertEquals(calls(events).filter((event) => event.session === id).length, PER_CLIENT);
  }
  assert(events.every((event) => event.transport === "http"));
});

Deno.test("audit: rotation keeps every file within the size limit and exactly the fixed number of old files", async () => {
  await using logs = await logDir();
  await using server = await startServer({
    args: ["--audit-log", logs.log, "--audit-log-max-bytes", `${AUDIT_LIMITS.minMaxBytes}`],
  });
  // Each event carries a 4,000-byte argument: a file holds about 15 of them.
  const long = "x".repeat(4000);
  for (let i = 0; i < 120; i++) await server.call("list_dir", { path: `${long}${i}` });
  await server.close();
  await eventually(logs.log, ended);
  const names = (await Array.fromAsync(Deno.readDir(logs.dir))).map((entry) => entry.name).sort();
  assertEquals(names, [
    "audit.jsonl",
    ...Array.from({ length: AUDIT_LIMITS.keptFiles }, (_, i) => `audit.jsonl.${i + 1}`),
  ]);
  for (const name of names) {
    const file = path.join(logs.dir, name);
    assert((await Deno.stat(file)).size <= AUDIT_LIMITS.minMaxBytes, name);
    await readEvents(file);
  }
});

Deno.test("audit: an unwritable log leaves the server serving and says so, on stderr and in server_info", async () => {
  await using server = await startServer({ args: ["--audit-log", "/proc/version/audit.jsonl"] });
  const info = await server.call("server_info", {});
  assert(!info.isError, info.text);
  const audit = info.structured.audit;
  assertEquals([audit.enabled, audit.state, audit.events_written], [true, "failing", 0]);
  assert(audit.last_error.length > 0 && info.text.includes("audit log: /proc/version/audit.jsonl (FAILING"), info.text);
  assert(server.stderr().includes("audit log /proc/version/audit.jsonl"), server.stderr());
  assertEquals((await server.call("list_dir", {})).isError, false);
});

Deno.test("audit: a log that stops being writable mid-session is reported, and is fatal only with --audit-required", async () => {
  await using logs = await logDir();
  await using server = await startServer({ args: ["--audit-log", logs.log] });
  await server.call("list_dir", {});
  await Deno.remove(logs.dir, { recursive: true });
  assertEquals((await server.call("list_dir", {})).isError, false);
  const audit = (await server.call("server_info", {})).structured.audit;
  assertEquals([audit.state, audit.events_written, audit.events_lost], ["failing", 2, 1]);

  await using required = await logDir();
  await using stopped = await startServer({ args: ["--audit-log", required.log, "--audit-required"] });
  assertEquals((await stopped.call("list_dir", {})).isError, false);
  await Deno.remove(required.dir, { recursive: true });
  // The call that cannot be recorded is never answered: the server stops first.
  let answered = true;
  await stopped.call("list_dir", {}).catch(() => answered = false);
  assert(!answered, "the unrecorded call was answered");
  assert(stopped.stderr().includes("--audit-required: the server stops"), stopped.stderr());
});

/** Runs the server's command line to completion (it is expected to refuse to start). */
async function refusedStart(workspace: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const spec = serverCommand(workspace, null, args);
  const out = await new Deno.Command(spec.command, { args: spec.args, stdin: "null", stdout: "null", stderr: "piped" })
    .output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("audit: --audit-required refuses to start on a log it cannot open or that commands may write", async () => {
  const workspace = await tempWorkspace();
  try {
    const unopenable = await refusedStart(workspace, ["--audit-log", "/proc/version/a.jsonl", "--audit-required"]);
    assertEquals(unopenable.code, 2, unopenable.stderr);
    assert(unopenable.stderr.includes("--audit-log /proc/version/a.jsonl"), unopenable.stderr);
    const inside = await refusedStart(workspace, ["--audit-log", `${workspace}/audit.jsonl`, "--audit-required"]);
    assertEquals(inside.code, 2, inside.stderr);
    assert(inside.stderr.includes("which commands may write"), inside.stderr);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("audit: without --audit-required a log inside the workspace is served with a warning", async () => {
  await using server = await startServer({ args: ["--audit-log", "audit.jsonl"] });
  const audit = (await server.call("server_info", {})).structured.audit;
  assertEquals(audit.path, path.join(server.workspace, "audit.jsonl"));
  assert(audit.warnings[0].includes("which commands may write"), JSON.stringify(audit));
  assert(server.stderr().includes("WARNING: the audit log"), server.stderr());
});

Deno.test("audit: WORKCELL_AUDIT_LOG names the log; --audit-summary reads it back, left-running and workdir refusals said so", async () => {
  await using logs = await logDir();
  {
    await using server = await startServer({ env: { WORKCELL_AUDIT_LOG: logs.log } });
    await server.call("exec_command", { cmd: "false" });
    await server.call("exec_command", { cmd: "wget x" });
    await server.call("exec_command", { cmd: "sleep 60", yield_time_ms: 0 });
    await server.call("exec_command", { cmd: "ls", workdir: "../.." });
  }
  await eventually(logs.log, ended);
  const spec = serverCommand(logs.dir, null, []);
  const args = [...spec.args.filter((arg) => arg !== "--workspace" && arg !== logs.dir), "--audit-summary", logs.log];
  const out = await new Deno.Command(spec.command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assert(text.startsWith("audit.jsonl: 1 session(s), 4 call(s)"), text);
  assert(text.includes("exit 1    false") && text.includes("exec_command wget x — network.command"), text);
  assert(text.includes("running   sleep 60 (left running when the session ended, which killed it)"), text);
  assert(text.includes("exec_command workdir ../.. (so ls did not run) — PATH_OUTSIDE_WORKSPACE"), text);
  const missing = await new Deno.Command(spec.command, {
    args: [...args.slice(0, -1), path.join(logs.dir, "none")],
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(missing.code, 1);
});

Deno.test("audit: as an ordinary user the log is written where that user may write, and refused (serving) elsewhere", async () => {
  const asNobody = await unprivileged();
  await using logs = await logDir();
  await Deno.chown(logs.dir, NOBODY, NOBODY);
  const workspace = await tempWorkspace();
  await Deno.chown(workspace, NOBODY, NOBODY);
  try {
    {
      await using server = await startServer({ workspace, ...asNobody, args: ["--audit-log", logs.log] });
      assertEquals((await server.call("server_info", {})).structured.audit.state, "ok");
    }
    const events = await eventually(logs.log, ended);
    assertEquals(events.map((event) => event.event), ["session_start", "tool_call", "session_end"]);
    assertEquals((await Deno.stat(logs.log)).uid, NOBODY);
    await using rootOnly = await logDir();
    await Deno.chmod(rootOnly.dir, 0o700);
    await using refused = await startServer({ workspace, ...asNobody, args: ["--audit-log", rootOnly.log] });
    const audit = (await refused.call("server_info", {})).structured.audit;
    assertEquals(audit.state, "failing");
    assert(/denied/i.test(audit.last_error), audit.last_error);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("audit: the README's CI example gives workcell only flags the parser accepts", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("## The audit trail"), readme.indexOf("## How confinement works"));
  const example = section.slice(section.indexOf("```yaml"), section.indexOf("```", section.indexOf("```yaml") + 3));
  const lines = [...example.matchAll(/(?:^|[\s`])workcell (--[^`\n]*)/g)].map((match) => match[1]);
  assertEquals(lines.length, 2);
  for (const line of lines) {
    const argv = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
    parseArgs(argv, { WORKCELL_AUDIT_LOG: "/tmp/audit.jsonl" });
  }
});

Deno.test("audit: a session whose workspace is the client's root keeps its id and starts once", async () => {
  await using logs = await logDir();
  const launchDir = await tempWorkspace();
  const root = await tempWorkspace();
  try {
    {
      await using server = await startServer({
        workspace: null,
        cwd: launchDir,
        roots: [`file://${root}`],
        args: ["--audit-log", logs.log],
      });
      const [, info] = await Promise.all([server.call("list_dir", {}), server.call("server_info", {})]);
      // The process that answered initialize binds the root itself, with no Deno write grant.
      assertEquals([info.structured.workspace.root, info.structured.workspace.deno_write_grant], [root, "none"]);
      await server.call("exec_command", { cmd: "true" });
    }
    const events = await eventually(logs.log, ended);
    assertEquals(events.map((event) => event.event), [
      "session_start",
      "tool_call",
      "tool_call",
      "tool_call",
      "session_end",
    ]);
    assertEquals(new Set(events.map((event) => event.session)).size, 1);
    assertEquals(new Set(events.map((event) => event.pid)).size, 1, "one process");
    assertEquals(calls(events).map((event) => event.outcome), ["ok", "ok", "ok"]);
  } finally {
    await Deno.remove(launchDir, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});
