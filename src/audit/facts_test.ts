import { assertEquals } from "../../testing/assert.ts";
import { callFacts, type FactContext, gateDecision, outcomeOf } from "./facts.ts";
import { describeSandbox } from "../policy/child_sandbox_plan.ts";
import { AUDIT_LIMITS } from "./limits.ts";

const sandbox = describeSandbox(null);
const context: FactContext = { mode: "safe", grants: ["network"], sandbox, text: (value) => value };
const blocked = {
  ok: false,
  error: { code: "COMMAND_BLOCKED", message: "m", hint: "h", details: { rule: "network.command", gate: "network" } },
};
const exited = {
  ok: true,
  command_id: "c1-ab",
  status: "exited",
  exit_code: 3,
  signal: null,
  duration_ms: 12,
  stdout: "the output itself",
  stdout_total_bytes: 17,
  stderr_total_bytes: 0,
};

Deno.test("outcome: ok, an error code, and the rule of a refusal", () => {
  assertEquals(outcomeOf({ ok: true }), { outcome: "ok", refusal: null });
  assertEquals(outcomeOf({ ok: false, error: { code: "NOT_FOUND", details: {} } }), {
    outcome: "NOT_FOUND",
    refusal: null,
  });
  assertEquals(outcomeOf(blocked), {
    outcome: "COMMAND_BLOCKED",
    refusal: { rule: "network.command", gate: "network" },
  });
  assertEquals(outcomeOf({ ok: false, error: { code: "PATH_OUTSIDE_WORKSPACE", details: { path: "../x" } } }), {
    outcome: "PATH_OUTSIDE_WORKSPACE",
    refusal: { rule: "PATH_OUTSIDE_WORKSPACE", gate: null },
  });
  assertEquals(outcomeOf(undefined), { outcome: "ok", refusal: null });
});

Deno.test("gate decision: allowed once planned, refused by the gate, unknown when the call failed before it", () => {
  assertEquals(gateDecision({ outcome: "ok" }), "allowed");
  assertEquals(gateDecision({ outcome: "COMMAND_NOT_FOUND" }), "allowed");
  assertEquals(gateDecision({ outcome: "COMMAND_BLOCKED" }), "refused");
  assertEquals(gateDecision({ outcome: "NOT_A_DIRECTORY" }), null);
});

Deno.test("exec_command: workdir, mode, grants, gate, sandbox and the command's status, never its output", () => {
  const parsed = { cmd: "make", workdir: "src" };
  assertEquals(callFacts("exec_command", parsed, exited, context), {
    exec: {
      workdir: "src",
      mode: "safe",
      grants: ["network"],
      gate: { decision: "allowed", rule: null, gate: null },
      sandbox,
    },
    command: {
      command_id: "c1-ab",
      status: "exited",
      exit_code: 3,
      signal: null,
      duration_ms: 12,
      stdout_bytes: 17,
      stderr_bytes: 0,
    },
  });
  assertEquals(callFacts("exec_command", parsed, blocked, context).exec?.gate, {
    decision: "refused",
    rule: "network.command",
    gate: "network",
  });
  assertEquals(callFacts("exec_command", parsed, blocked, context).exec?.sandbox, null);
  assertEquals(callFacts("write_stdin", { command_id: "c1-ab" }, exited, context).command?.exit_code, 3);
  assertEquals(callFacts("exec_command", null, blocked, context), {});
});

Deno.test("apply_patch: files with line counts, bounded; request_permissions: asked and granted", () => {
  const files = Array.from({ length: AUDIT_LIMITS.maxListed + 2 }, (_, i) => ({
    op: "update",
    path: `f${i}`,
    moved_to: null,
    added: 1,
    removed: 2,
  }));
  const patch = callFacts("apply_patch", { patch: "…" }, { ok: true, files, diff: "+secret line" }, context).patch!;
  assertEquals(patch.files.length, AUDIT_LIMITS.maxListed);
  assertEquals(patch.files_omitted, 2);
  assertEquals(patch.files[0], { op: "update", path: "f0", moved_to: null, added: 1, removed: 2 });
  const permissions = callFacts("request_permissions", { permissions: ["network", "shell", "network"] }, {
    ok: true,
    status: "accepted",
    granted_permissions: ["network"],
    already_allowed: [],
    refused_by_mode: ["destructive"],
  }, context).permissions;
  assertEquals(permissions, {
    asked: ["network", "shell"],
    status: "accepted",
    granted: ["network"],
    already_allowed: [],
    refused_by_mode: ["destructive"],
  });
});
