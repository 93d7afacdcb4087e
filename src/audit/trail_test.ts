import * as path from "node:path";
import { assert, assertEquals } from "../../testing/assert.ts";
import { type AuditOptions, AuditTrail, type CallRecord, placementProblems } from "./trail.ts";
import { AUDIT_LIMITS } from "./limits.ts";
import { auditEventSchema } from "./event.ts";

const BEGIN = { client: { name: "test-client", version: "1.0" }, protocolVersion: "2025-11-25", workspace: "/repo" };

function record(overrides: Partial<CallRecord>): CallRecord {
  return {
    tool: "read_file",
    requestId: 1,
    arguments: { path: "a.txt" },
    parsed: { path: "a.txt" },
    structured: { ok: true, text: "the file's content" },
    startedAt: Date.now(),
    durationMs: 1.2345,
    cancelled: false,
    grants: [],
    sandbox: () => null,
    ...overrides,
  };
}

async function withTrail(
  options: Partial<AuditOptions>,
  run: (trail: AuditTrail, file: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-audit-trail-" }));
  const file = options.file ?? path.join(dir, "audit.jsonl");
  try {
    const trail = new AuditTrail({
      file,
      maxBytes: AUDIT_LIMITS.defaultMaxBytes,
      required: false,
      mode: "safe",
      env: {},
      secrets: [],
      onFatal: () => {
        throw new Error("not required");
      },
      ...options,
    });
    await run(trail, file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function events(file: string) {
  return (await Deno.readTextFile(file)).trim().split("\n").map((line) => auditEventSchema.parse(JSON.parse(line)));
}

Deno.test("trail: a session's start, calls and end are one valid line each, the content never", async () => {
  await withTrail({}, async (trail, file) => {
    const session = trail.session({ id: "s1", transport: "stdio" });
    session.begin(BEGIN);
    await session.call(record({}), BEGIN);
    await session.call(record({ structured: { ok: false, error: { code: "NOT_FOUND", details: {} } } }), BEGIN);
    session.end();
    await trail.close();
    const lines = await events(file);
    assertEquals(lines.map((event) => event.event), ["session_start", "tool_call", "tool_call", "session_end"]);
    assertEquals(lines.map((event) => event.event === "tool_call" ? event.outcome : null), [
      null,
      "ok",
      "NOT_FOUND",
      null,
    ]);
    const end = lines[3];
    assert(end.event === "session_end" && end.calls === 2 && end.reason === "closed");
    assert(!(await Deno.readTextFile(file)).includes("the file's content"));
    assertEquals(trail.status().events_written, 4);
  });
});

Deno.test("trail: sessions still open at close end as shutdown; a session that never began records nothing", async () => {
  await withTrail({}, async (trail, file) => {
    trail.session({ id: "s1", transport: "http" }).begin(BEGIN);
    trail.session({ id: "s2", transport: "stdio" });
    await trail.close();
    const lines = await events(file);
    assertEquals(lines.map((event) => `${event.event}:${event.session}`).sort(), [
      "session_end:s1",
      "session_start:s1",
    ]);
    assert(lines.every((event) => event.event !== "session_end" || event.reason === "shutdown"));
  });
});

Deno.test("trail: an unwritable log is reported and retried, never thrown", async () => {
  await withTrail({ file: "/proc/version/audit.jsonl" }, async (trail) => {
    assert(trail.open() !== null);
    const session = trail.session({ id: "s1", transport: "stdio" });
    await session.call(record({}), BEGIN);
    const status = trail.status();
    assertEquals(status.state, "failing");
    assertEquals(status.events_written, 0);
    assertEquals(status.events_lost, 2);
    assert(status.last_error !== null && status.last_error.length > 0);
  });
});

Deno.test("trail: under --audit-required the first lost event is fatal, once", async () => {
  const fatal: string[] = [];
  await withTrail(
    { file: "/proc/version/audit.jsonl", required: true, onFatal: (message) => void fatal.push(message) },
    async (trail) => {
      const session = trail.session({ id: "s1", transport: "stdio" });
      await session.call(record({}), BEGIN);
      await session.call(record({}), BEGIN);
    },
  );
  assertEquals(fatal.length, 1);
  assert(fatal[0].includes("--audit-required"), fatal[0]);
});

Deno.test("trail: an event over the line bound keeps its outcome, its arguments and facts become digests", async () => {
  await withTrail({}, async (trail, file) => {
    const session = trail.session({ id: "s1", transport: "stdio" });
    const paths = Array.from({ length: AUDIT_LIMITS.maxListed }, (_, i) => `${"d/".repeat(200)}${i}`);
    await session.call(record({ tool: "git_diff", arguments: { paths }, parsed: { paths } }), BEGIN);
    await trail.close();
    const call = (await events(file)).find((event) => event.event === "tool_call")!;
    assert(call.event === "tool_call");
    assertEquals(call.outcome, "ok");
    assert(typeof (call.arguments as { bytes: number }).bytes === "number");
    assert(call.facts.omitted !== undefined);
    for (const line of (await Deno.readTextFile(file)).split("\n")) assert(line.length <= AUDIT_LIMITS.maxEventBytes);
  });
});

Deno.test("placement: a log where commands may write is a warning, inside a writable root what --audit-required refuses", () => {
  const roots = ["/repo", "/tmp/workcell-tmp-abc"];
  assertEquals(placementProblems("/var/log/audit.jsonl", roots, "safe"), { warnings: [], inside: null });
  assertEquals(placementProblems("/repo-audit.jsonl", roots, "safe"), { warnings: [], inside: null });
  assertEquals(placementProblems("/repo/logs/audit.jsonl", roots, "safe").inside, "/repo");
  assertEquals(placementProblems("/tmp/workcell-tmp-abc/a", roots, "trusted").inside, "/tmp/workcell-tmp-abc");
  const dangerous = placementProblems("/var/log/audit.jsonl", "anywhere", "dangerous");
  assertEquals(dangerous.inside, null);
  assert(dangerous.warnings[0].startsWith("dangerous mode"), dangerous.warnings[0]);
  assert(placementProblems("/x", "anywhere", "safe").warnings[0].includes("without a Landlock sandbox"));
});
