/** An audit line's per-tool facts, from each result's structuredContent (never its text); nothing here knows MCP. */
import type { SandboxDescription } from "../policy/child_sandbox_plan.ts";
import type { CallFacts, CommandFacts, ToolCallEvent } from "./event.ts";
import { AUDIT_LIMITS } from "./limits.ts";

/** A result's structuredContent, as loosely as the audit reads it. */
export type Structured = Record<string, unknown> | undefined;

/** Codes that mean a policy said no (rather than that something failed). */
const REFUSAL_CODES = new Set([
  "COMMAND_BLOCKED",
  "PATH_OUTSIDE_WORKSPACE",
  "PATH_PROTECTED",
  "TOOL_DISABLED",
  "NO_WORKSPACE",
]);
/** exec_command codes that the gate decided: it refused, or it allowed and the start failed afterwards. */
const GATE_REFUSED = new Set(["COMMAND_BLOCKED", "PATH_PROTECTED"]);
const GATE_ALLOWED = new Set(["ok", "COMMAND_NOT_FOUND"]);
const COMMAND_TOOLS = new Set(["exec_command", "write_stdin", "kill_command"]);

function errorOf(structured: Structured): { code: string; details: Record<string, unknown> } | null {
  if (structured?.ok !== false) return null;
  const error = structured.error as { code?: unknown; details?: unknown } | undefined;
  const details = error?.details !== null && typeof error?.details === "object" ? error.details : {};
  return {
    code: typeof error?.code === "string" ? error.code : "INTERNAL",
    details: details as Record<string, unknown>,
  };
}

const stringOrNull = (value: unknown): string | null => typeof value === "string" ? value : null;
const strings = (value: unknown): string[] => Array.isArray(value) ? value.map(String) : [];

/**
 * "ok" or the error code of a result, and the rule when it was a refusal.
 * @example
 * ```ts
 * outcomeOf({ ok: false, error: { code: "COMMAND_BLOCKED", details: { rule: "network.command" } } }).refusal?.rule;
 * ```
 */
export function outcomeOf(structured: Structured): Pick<ToolCallEvent, "outcome" | "refusal"> {
  const error = errorOf(structured);
  if (error === null) return { outcome: "ok", refusal: null };
  if (!REFUSAL_CODES.has(error.code)) return { outcome: error.code, refusal: null };
  return {
    outcome: error.code,
    refusal: { rule: stringOrNull(error.details.rule) ?? error.code, gate: stringOrNull(error.details.gate) },
  };
}

/**
 * Whether exec_command's gate let the command through, or null when the call failed before the gate decided.
 * @example
 * ```ts
 * gateDecision(outcomeOf({ ok: false, error: { code: "COMMAND_BLOCKED" } })); // "refused"
 * ```
 */
export function gateDecision(outcome: Pick<ToolCallEvent, "outcome">): "allowed" | "refused" | null {
  if (GATE_ALLOWED.has(outcome.outcome)) return "allowed";
  return GATE_REFUSED.has(outcome.outcome) ? "refused" : null;
}

/** What the facts need besides the call: the policy it ran under and the text redactor. */
export interface FactContext {
  mode: "safe" | "trusted" | "dangerous";
  grants: readonly string[];
  sandbox: SandboxDescription | null;
  text(value: string): string;
}

function commandFacts(structured: Record<string, unknown>): CommandFacts {
  return {
    command_id: String(structured.command_id),
    status: structured.status === "running" ? "running" : "exited",
    exit_code: typeof structured.exit_code === "number" ? structured.exit_code : null,
    signal: stringOrNull(structured.signal),
    duration_ms: Number(structured.duration_ms ?? 0),
    stdout_bytes: Number(structured.stdout_total_bytes ?? 0),
    stderr_bytes: Number(structured.stderr_total_bytes ?? 0),
  };
}

function patchFacts(structured: Record<string, unknown>): NonNullable<CallFacts["patch"]> {
  const files = Array.isArray(structured.files) ? structured.files as Record<string, unknown>[] : [];
  return {
    files: files.slice(0, AUDIT_LIMITS.maxListed).map((file) => ({
      op: file.op as "add" | "update" | "delete" | "move",
      path: String(file.path),
      moved_to: stringOrNull(file.moved_to),
      added: Number(file.added ?? 0),
      removed: Number(file.removed ?? 0),
    })),
    files_omitted: Math.max(0, files.length - AUDIT_LIMITS.maxListed),
  };
}

/**
 * The facts of one call: `parsed` is its validated arguments (null when invalid), `structured` its structuredContent.
 * @example
 * ```ts
 * const context: FactContext = { mode: "safe", grants: [], sandbox: null, text: (value) => value };
 * callFacts("write_stdin", { command_id: "c1" }, { ok: true, command_id: "c1", status: "exited" }, context).command;
 * ```
 */
export function callFacts(
  tool: string,
  parsed: Record<string, unknown> | null,
  structured: Structured,
  context: FactContext,
): CallFacts {
  if (parsed === null) return {};
  const facts: CallFacts = {};
  const ok = structured?.ok === true ? structured : null;
  if (tool === "exec_command") {
    const outcome = outcomeOf(structured);
    const decision = gateDecision(outcome);
    facts.exec = {
      workdir: context.text(String(parsed.workdir ?? ".")),
      mode: context.mode,
      grants: [...context.grants].sort(),
      gate: decision === null
        ? null
        : { decision, rule: outcome.refusal?.rule ?? null, gate: outcome.refusal?.gate ?? null },
      sandbox: ok ? context.sandbox : null,
    };
  }
  if (ok && COMMAND_TOOLS.has(tool)) facts.command = commandFacts(ok);
  if (ok && tool === "apply_patch") facts.patch = patchFacts(ok);
  if (ok && tool === "request_permissions") {
    facts.permissions = {
      asked: [...new Set(strings(parsed.permissions))],
      status: String(ok.status),
      granted: strings(ok.granted_permissions),
      already_allowed: strings(ok.already_allowed),
      refused_by_mode: strings(ok.refused_by_mode),
    };
  }
  return facts;
}
