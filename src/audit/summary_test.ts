import * as path from "node:path";
import { assert, assertEquals } from "../../testing/assert.ts";
import { formatDuration, readAuditLog, summarizeEvents, SUMMARY_LISTED } from "./summary.ts";
import type { AuditEvent, ToolCallEvent } from "./event.ts";

const common = { v: 1 as const, session: "s1", transport: "stdio" as const, pid: 1, time: "2026-01-01T00:00:00.000Z" };

function call(tool: string, fields: Partial<ToolCallEvent>): ToolCallEvent {
  return {
    ...common,
    event: "tool_call",
    tool,
    request_id: 1,
    arguments: {},
    outcome: "ok",
    duration_ms: 1,
    cancelled: false,
    refusal: null,
    facts: {},
    ...fields,
  };
}

const command = (id: string, status: "running" | "exited", exit_code: number | null, signal: string | null = null) => ({
  command_id: id,
  status,
  exit_code,
  signal,
  duration_ms: 5,
  stdout_bytes: 10,
  stderr_bytes: 0,
});

const EVENTS: AuditEvent[] = [
  {
    ...common,
    event: "session_start",
    server: { name: "workcell", version: "0.1.0" },
    client: { name: "ci-agent", version: "2.0" },
    protocol_version: "2025-11-25",
    mode: "safe",
    workspace: "/repo",
    log_warnings: [],
  },
  call("exec_command", { arguments: { cmd: "deno task test" }, facts: { command: command("c1", "running", null) } }),
  call("write_stdin", { arguments: { command_id: "c1" }, facts: { command: command("c1", "exited", 1) } }),
  call("exec_command", { arguments: { cmd: "sleep 100" }, facts: { command: command("c2", "running", null) } }),
  call("kill_command", {
    arguments: { command_id: "c2" },
    facts: { command: command("c2", "exited", null, "SIGTERM") },
  }),
  call("exec_command", {
    arguments: { cmd: "curl https://x" },
    outcome: "COMMAND_BLOCKED",
    refusal: { rule: "network.command", gate: "network" },
    facts: {
      exec: {
        workdir: ".",
        mode: "safe",
        grants: [],
        gate: { decision: "refused", rule: "x", gate: "x" },
        sandbox: null,
      },
    },
  }),
  call("exec_command", { arguments: { cmd: "deno task dev" }, facts: { command: command("c3", "running", null) } }),
  call("exec_command", {
    arguments: { cmd: "ls", workdir: "../etc" },
    outcome: "PATH_OUTSIDE_WORKSPACE",
    refusal: { rule: "PATH_OUTSIDE_WORKSPACE", gate: null },
    facts: { exec: { workdir: "../etc", mode: "safe", grants: [], gate: null, sandbox: null } },
  }),
  call("exec_command", {
    arguments: { cmd: "frobnicate" },
    outcome: "COMMAND_NOT_FOUND",
    facts: {
      exec: {
        workdir: ".",
        mode: "safe",
        grants: [],
        gate: { decision: "allowed", rule: null, gate: null },
        sandbox: null,
      },
    },
  }),
  call("apply_patch", {
    arguments: { patch: { bytes: 90 } },
    facts: {
      patch: {
        files: [
          { op: "add", path: "new.ts", moved_to: null, added: 3, removed: 0 },
          { op: "delete", path: "old.ts", moved_to: null, added: 0, removed: 9 },
        ],
        files_omitted: 0,
      },
    },
  }),
  call("apply_patch", {
    facts: {
      patch: { files: [{ op: "update", path: "new.ts", moved_to: null, added: 1, removed: 1 }], files_omitted: 0 },
    },
  }),
  call("request_permissions", {
    facts: {
      permissions: {
        asked: ["network"],
        status: "accepted",
        granted: ["network"],
        already_allowed: [],
        refused_by_mode: [],
      },
    },
  }),
  call("read_file", {
    arguments: { path: "../etc/passwd" },
    outcome: "PATH_OUTSIDE_WORKSPACE",
    refusal: { rule: "PATH_OUTSIDE_WORKSPACE", gate: null },
  }),
  { ...common, event: "session_end", reason: "closed", duration_ms: 252_000, calls: 12 },
];

Deno.test("summary: per session its client, duration, calls per tool, commands, files, refusals and grants", () => {
  const text = summarizeEvents({ files: ["/logs/audit.jsonl"], events: EVENTS, unreadable: 1 });
  const expected = [
    "audit.jsonl: 1 session(s), 12 call(s), 1 unreadable line(s)",
    "",
    "session s1 (stdio, client ci-agent 2.0, safe mode, workspace /repo)",
    "  2026-01-01T00:00:00.000Z, 4 min 12 s; ended: closed",
    "  calls: 12, 4 failed — exec_command 6 (3 failed), apply_patch 2, write_stdin 1, kill_command 1, " +
    "request_permissions 1, read_file 1 (1 failed)",
    "  commands (4):",
    "    exit 1    deno task test",
    "    SIGTERM   sleep 100",
    "    running   deno task dev (left running when the session ended, which killed it)",
    "    not run   frobnicate (COMMAND_NOT_FOUND)",
    "  files changed (2):",
    "    A new.ts (+4 -1)",
    "    D old.ts",
    "  refusals (3):",
    "    exec_command curl https://x — network.command",
    "    exec_command workdir ../etc (so ls did not run) — PATH_OUTSIDE_WORKSPACE",
    "    read_file ../etc/passwd — PATH_OUTSIDE_WORKSPACE",
    "  permissions:",
    "    asked network: accepted, granted network",
  ];
  assertEquals(text.split("\n"), expected);
});

Deno.test("summary: long lists are cut with a count; a session whose start rotated away still shows", () => {
  const many = Array.from(
    { length: SUMMARY_LISTED + 5 },
    (_, i) =>
      call("exec_command", { arguments: { cmd: `echo ${i}` }, facts: { command: command(`c${i}`, "exited", 0) } }),
  );
  const text = summarizeEvents({ files: ["a"], events: many, unreadable: 0 });
  assert(text.includes("start not in the log"), text);
  const unended = summarizeEvents({ files: ["a"], events: EVENTS.slice(0, -1), unreadable: 0 });
  assert(unended.includes("running   deno task dev (running when the log ends)"), unended);
  assert(text.includes(`commands (${SUMMARY_LISTED + 5}):`), text);
  assert(text.includes("… and 5 more"), text);
  assertEquals(summarizeEvents({ files: ["a"], events: [], unreadable: 0 }), "a: no sessions");
});

Deno.test("readAuditLog: the rotated files first, oldest first, torn lines counted; a missing log throws", async () => {
  const dir = await Deno.makeTempDir({ prefix: "workcell-audit-summary-" });
  try {
    const log = path.join(dir, "audit.jsonl");
    const line = (tool: string) => JSON.stringify(call(tool, {}));
    await Deno.writeTextFile(`${log}.2`, line("read_file") + "\n");
    await Deno.writeTextFile(`${log}.1`, line("list_dir") + '\n{"event":"tool_c\n\n');
    await Deno.writeTextFile(log, line("git_log"));
    const read = await readAuditLog(log);
    assertEquals(read.files.map((file) => path.basename(file)), ["audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"]);
    assertEquals(read.events.map((event) => (event as ToolCallEvent).tool), ["read_file", "list_dir", "git_log"]);
    assertEquals(read.unreadable, 1);
    let missing = false;
    await readAuditLog(path.join(dir, "none.jsonl")).catch((error) => missing = error instanceof Deno.errors.NotFound);
    assert(missing);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("formatDuration", () => {
  assertEquals([formatDuration(850), formatDuration(12_400), formatDuration(3_780_000)], [
    "850 ms",
    "12 s",
    "1 h 3 min",
  ]);
});
