/** The audit events (schemas/audit-event.json), one JSON object per line, never file contents, output or secrets. */
import { z } from "../zod.ts";
import { AUDIT_LIMITS } from "./limits.ts";

/** The format version every event carries; it changes only when a field changes meaning or goes away. */
export const AUDIT_FORMAT_VERSION = 1;

/** A value logged by its size (and, from 32 bytes on, its SHA-256) instead of its text. */
const digestSchema = z.strictObject({
  bytes: z.int().describe("UTF-8 bytes of the value."),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional().describe(
    "Lowercase hex SHA-256 of the value's UTF-8 bytes; absent under 32 bytes, where it could be reversed by guessing.",
  ),
}).describe("A large or content-bearing value (patch text, stdin) replaced by its size and digest.");

const common = {
  v: z.literal(AUDIT_FORMAT_VERSION),
  time: z.iso.datetime().describe("UTC, ms precision: when the session started or ended, or when the call arrived."),
  session: z.string().describe("The session's id (random; not the HTTP Mcp-Session-Id)."),
  transport: z.enum(["stdio", "http"]),
  pid: z.int().describe("The server process."),
};

const implementation = z.strictObject({ name: z.string(), version: z.string() });

const sessionStartSchema = z.strictObject({
  ...common,
  event: z.literal("session_start"),
  server: implementation,
  client: implementation.nullable(),
  protocol_version: z.string().nullable(),
  mode: z.enum(["safe", "trusted", "dangerous"]),
  workspace: z.string().nullable().describe("The workspace root, or null while the client's roots decide it."),
  log_warnings: z.array(z.string()).describe("Why commands could alter this log (it lies where they may write)."),
});

const sessionEndSchema = z.strictObject({
  ...common,
  event: z.literal("session_end"),
  reason: z.enum(["closed", "shutdown"]).describe("closed: its transport closed; shutdown: the server stopped."),
  duration_ms: z.number(),
  calls: z.int(),
});

const commandFactsSchema = z.strictObject({
  command_id: z.string(),
  status: z.enum(["running", "exited"]),
  exit_code: z.int().nullable(),
  signal: z.string().nullable(),
  duration_ms: z.number(),
  stdout_bytes: z.int().describe("Bytes the command wrote to stdout so far (never the bytes themselves)."),
  stderr_bytes: z.int(),
});

const sandboxFactsSchema = z.strictObject({
  enforced: z.boolean(),
  layers: z.array(z.string()),
  writes: z.union([z.literal("anywhere"), z.array(z.string())]),
  reads: z.union([z.string(), z.array(z.string())]),
  executes: z.union([z.literal("anything"), z.array(z.string())]),
  network: z.string(),
  read_only: z.array(z.string()),
  capabilities_dropped: z.boolean(),
  signals_scoped: z.boolean(),
});

const execFactsSchema = z.strictObject({
  workdir: z.string(),
  mode: z.enum(["safe", "trusted", "dangerous"]),
  grants: z.array(z.string()).describe("The session's grants at the call."),
  gate: z.strictObject({
    decision: z.enum(["allowed", "refused"]),
    rule: z.string().nullable(),
    gate: z.string().nullable(),
  }).nullable().describe("null: the call failed before the gate decided (bad workdir, a limit, no PTY)."),
  sandbox: sandboxFactsSchema.nullable().describe("null when no command was started."),
});

const patchFactsSchema = z.strictObject({
  files: z.array(z.strictObject({
    op: z.enum(["add", "update", "delete", "move"]),
    path: z.string(),
    moved_to: z.string().nullable(),
    added: z.int(),
    removed: z.int(),
  })),
  files_omitted: z.int().describe(`Files beyond the ${AUDIT_LIMITS.maxListed} listed.`),
});

const permissionFactsSchema = z.strictObject({
  asked: z.array(z.string()),
  status: z.string(),
  granted: z.array(z.string()),
  already_allowed: z.array(z.string()),
  refused_by_mode: z.array(z.string()),
});

const toolCallSchema = z.strictObject({
  ...common,
  event: z.literal("tool_call"),
  tool: z.string(),
  request_id: z.union([z.string(), z.number()]).nullable(),
  arguments: z.unknown().describe(
    "The arguments as sent, with content (patch, stdin) and long strings as digests, env values and secrets redacted.",
  ),
  outcome: z.string().describe('"ok", or the error code of the result.'),
  duration_ms: z.number(),
  cancelled: z.boolean().describe("The client cancelled the request (or went away) before it ended."),
  refusal: z.strictObject({ rule: z.string(), gate: z.string().nullable() }).nullable().describe(
    "For a refusal (COMMAND_BLOCKED, PATH_OUTSIDE_WORKSPACE, PATH_PROTECTED, TOOL_DISABLED, NO_WORKSPACE): the rule.",
  ),
  facts: z.strictObject({
    exec: execFactsSchema.optional(),
    command: commandFactsSchema.optional(),
    patch: patchFactsSchema.optional(),
    permissions: permissionFactsSchema.optional(),
    omitted: digestSchema.optional().describe(
      `The facts, when the event would have exceeded ${AUDIT_LIMITS.maxEventBytes} bytes.`,
    ),
  }),
});

/** Any line of the audit log. */
export const auditEventSchema = z.discriminatedUnion("event", [sessionStartSchema, sessionEndSchema, toolCallSchema]);

export type AuditEvent = z.infer<typeof auditEventSchema>;
export type SessionStartEvent = z.infer<typeof sessionStartSchema>;
export type SessionEndEvent = z.infer<typeof sessionEndSchema>;
export type ToolCallEvent = z.infer<typeof toolCallSchema>;
export type CallFacts = ToolCallEvent["facts"];
export type CommandFacts = z.infer<typeof commandFactsSchema>;
export type Digest = z.infer<typeof digestSchema>;

/**
 * The JSON Schema of an audit line (draft-07), as schemas/audit-event.json holds it.
 * @example
 * ```ts
 * await Deno.writeTextFile("schemas/audit-event.json", JSON.stringify(auditEventJsonSchema(), null, 2));
 * ```
 */
export function auditEventJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(auditEventSchema, { target: "draft-7", io: "output" });
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "workcell audit event",
    description: "One line of the file --audit-log writes (docs/audit.md).",
    ...schema,
  };
}
