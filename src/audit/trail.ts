/**
 * The audit trail of one server process (`--audit-log FILE`). A line that cannot be written is reported, counted and
 * retried with the next event; only `--audit-required` stops the server, before the unrecorded call is answered.
 */
import * as path from "node:path";
import { z } from "../zod.ts";
import type { Mode } from "../policy/modes.ts";
import type { SandboxDescription } from "../policy/child_sandbox_plan.ts";
import { SERVER_NAME, SERVER_VERSION } from "../version.ts";
import { AUDIT_FORMAT_VERSION, type AuditEvent, type SessionStartEvent, type ToolCallEvent } from "./event.ts";
import { callFacts, outcomeOf, type Structured } from "./facts.ts";
import { AuditFile } from "./file.ts";
import { AUDIT_LIMITS } from "./limits.ts";
import { digest, Redactor } from "./redact.ts";

/** What the trail needs from start-up. */
export interface AuditOptions {
  /** The log's real path (resolveLogPath). */
  file: string;
  maxBytes: number;
  required: boolean;
  mode: Mode;
  env: Record<string, string>;
  /** Other values to redact (the HTTP bearer token). */
  secrets: readonly string[];
  /** Under `required`, called once when an event could not be written; it stops the server (the write waits on it). */
  onFatal(message: string): void | Promise<void>;
}

/** What server_info reports of the trail (`server_info.audit`). */
export const auditStatusSchema = z.object({
  enabled: z.boolean().describe("Whether --audit-log (or WORKCELL_AUDIT_LOG) names a log."),
  path: z.string().nullable(),
  required: z.boolean().describe("--audit-required: a log that cannot be written stops the server."),
  max_bytes: z.int().describe("Size at which the log is rotated."),
  kept_files: z.int().describe("Rotated files kept beside it (FILE.1 the newest)."),
  state: z.enum(["off", "ok", "failing"]).describe(
    "failing: the last event could not be written (last_error says why).",
  ),
  events_written: z.int(),
  events_lost: z.int().describe("Events that could not be written."),
  last_error: z.string().nullable(),
  warnings: z.array(z.string()).describe("Why commands could alter the log (it lies where they may write)."),
});

/** The value of server_info.audit. */
export type AuditStatus = z.infer<typeof auditStatusSchema>;

/** The status of a server without `--audit-log`. */
export const AUDIT_OFF: AuditStatus = {
  enabled: false,
  path: null,
  required: false,
  max_bytes: AUDIT_LIMITS.defaultMaxBytes,
  kept_files: AUDIT_LIMITS.keptFiles,
  state: "off",
  events_written: 0,
  events_lost: 0,
  last_error: null,
  warnings: [],
};

/** One finished tools/call, as the dispatch saw it. */
export interface CallRecord {
  tool: string;
  requestId: string | number | null;
  arguments: unknown;
  /** The validated arguments (defaults applied), or null when validation failed or the tool is unknown. */
  parsed: Record<string, unknown> | null;
  structured: Structured;
  /** Epoch ms when the call arrived. */
  startedAt: number;
  durationMs: number;
  cancelled: boolean;
  grants: readonly string[];
  /** The sandbox the command exec_command started runs under, asked only when it started one. */
  sandbox(): SandboxDescription | null;
}

/** What is known of a session at initialize. */
export interface SessionBegin {
  client: { name: string; version: string } | null;
  protocolVersion: string | null;
  workspace: string | null;
}

/** Who a session is to the log. */
export interface SessionIdentity {
  id: string;
  transport: "stdio" | "http";
}

interface TrailContext {
  mode(): Mode;
  redactor(): Redactor;
  warnings(): string[];
  endReason(): "closed" | "shutdown";
  track(session: SessionAudit, open: boolean): void;
  emit(event: AuditEvent): Promise<void>;
  sync(): Promise<void>;
}

const encoder = new TextEncoder();
const MAX_TOOL_NAME_CHARS = 128;

/**
 * Why commands could alter a log at `file`, given the trees they may write, and the writable root it lies in.
 * @example
 * ```ts
 * placementProblems("/repo/audit.jsonl", ["/repo", "/tmp/workcell-tmp-x"], "safe").inside; // "/repo"
 * ```
 */
export function placementProblems(
  file: string,
  writes: "anywhere" | readonly string[],
  mode: Mode,
): { warnings: string[]; inside: string | null } {
  if (writes === "anywhere") {
    const why = mode === "dangerous"
      ? "dangerous mode runs commands without a sandbox"
      : "commands run without a Landlock sandbox on this machine";
    return {
      warnings: [`${why}: they can write the audit log ${file} like any file of the server's user`],
      inside: null,
    };
  }
  const inside = writes.find((root) => {
    const relative = path.relative(root, file);
    return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
  }) ?? null;
  if (inside === null) return { warnings: [], inside: null };
  return {
    warnings: [`the audit log ${file} lies in ${inside}, which commands may write: they could alter or delete it`],
    inside,
  };
}

/** The audit trail of one process. */
export class AuditTrail {
  readonly #options: AuditOptions;
  readonly #file: AuditFile;
  readonly #redactor: Redactor;
  readonly #open = new Set<SessionAudit>();
  #written = 0;
  #lost = 0;
  #lastError: string | null = null;
  #warnings: string[] = [];
  #stopping = false;
  #fatal = false;

  constructor(options: AuditOptions) {
    this.#options = options;
    this.#file = new AuditFile(options.file, options.maxBytes);
    this.#redactor = new Redactor(options.env, options.secrets);
  }

  get path(): string {
    return this.#file.path;
  }

  /** Opens the log now; returns why it cannot be (it is retried with every event), or null. */
  open(): string | null {
    try {
      this.#file.open();
      return null;
    } catch (error) {
      this.#lastError = (error as Error).message;
      return this.#lastError;
    }
  }

  /** Notes the trees commands may write; warns when they hold the log; returns what --audit-required refuses. */
  notePlacement(writes: "anywhere" | readonly string[]): string | null {
    const { warnings, inside } = placementProblems(this.path, writes, this.#options.mode);
    this.#warnings = warnings;
    for (const warning of warnings) console.error(`${SERVER_NAME}: WARNING: ${warning}`);
    return inside === null ? null : warnings[0];
  }

  status(): AuditStatus {
    return {
      ...AUDIT_OFF,
      enabled: true,
      path: this.path,
      required: this.#options.required,
      max_bytes: this.#options.maxBytes,
      state: this.#lastError === null ? "ok" : "failing",
      events_written: this.#written,
      events_lost: this.#lost,
      last_error: this.#lastError,
      warnings: [...this.#warnings],
    };
  }

  session(identity: SessionIdentity): SessionAudit {
    return new SessionAudit(this.#context, identity);
  }

  /** Sessions that end from now on ended because the server stops. */
  stopping(): void {
    this.#stopping = true;
  }

  /** Ends the sessions still open (the server stops), syncs and closes the log. */
  async close(): Promise<void> {
    this.stopping();
    for (const session of [...this.#open]) session.end();
    await this.#file.close().catch((error) => this.#failed(error, false));
  }

  readonly #context: TrailContext = {
    mode: () => this.#options.mode,
    redactor: () => this.#redactor,
    warnings: () => [...this.#warnings],
    endReason: () => this.#stopping ? "shutdown" : "closed",
    track: (session, open) => open ? this.#open.add(session) : this.#open.delete(session),
    emit: (event) => this.#emit(event),
    sync: () => this.#file.sync().catch((error) => this.#failed(error, false)),
  };

  /** Writes one event (bounded); resolves when it is written or its failure handled, never rejects. */
  async #emit(event: AuditEvent): Promise<void> {
    let line = JSON.stringify(event) + "\n";
    if (encoder.encode(line).length > AUDIT_LIMITS.maxEventBytes && event.event === "tool_call") {
      line = JSON.stringify({
        ...event,
        arguments: await digest(JSON.stringify(event.arguments) ?? ""),
        facts: { omitted: await digest(JSON.stringify(event.facts)) },
      }) + "\n";
    }
    try {
      await this.#file.append(encoder.encode(line));
      this.#written++;
      if (this.#lastError !== null) {
        console.error(`${SERVER_NAME}: audit log ${this.path}: writing again (${this.#lost} events were lost)`);
        this.#lastError = null;
      }
    } catch (error) {
      await this.#failed(error, true);
    }
  }

  #failed(error: unknown, lostEvent: boolean): void | Promise<void> {
    const message = (error as Error).message;
    if (lostEvent) this.#lost++;
    const first = this.#lastError === null;
    this.#lastError = message;
    if (this.#options.required) {
      if (this.#fatal) return;
      this.#fatal = true;
      return this.#options.onFatal(`audit log ${this.path}: ${message} (--audit-required: the server stops)`);
    } else if (first) {
      console.error(
        `${SERVER_NAME}: audit log ${this.path}: ${message}; events are not being recorded (server_info.audit says more)`,
      );
    }
  }
}

/** The recorder of one MCP session: its start, each call, its end. */
export class SessionAudit {
  readonly #trail: TrailContext;
  readonly #identity: SessionIdentity;
  #begun = false;
  #ended = false;
  #startedAt = Date.now();
  #calls = 0;

  constructor(trail: TrailContext, identity: SessionIdentity) {
    this.#trail = trail;
    this.#identity = identity;
  }

  #common(time: number) {
    return {
      v: AUDIT_FORMAT_VERSION as typeof AUDIT_FORMAT_VERSION,
      time: new Date(time).toISOString(),
      session: this.#identity.id,
      transport: this.#identity.transport,
      pid: Deno.pid,
    };
  }

  /** Records the session's start (once; initialize, or the first call of a session that never initialized). */
  begin(info: SessionBegin): void {
    if (this.#begun) return;
    this.#begun = true;
    this.#startedAt = Date.now();
    this.#trail.track(this, true);
    const event: SessionStartEvent = {
      ...this.#common(this.#startedAt),
      event: "session_start",
      server: { name: SERVER_NAME, version: SERVER_VERSION },
      client: info.client ? { name: info.client.name, version: info.client.version } : null,
      protocol_version: info.protocolVersion,
      mode: this.#trail.mode(),
      workspace: info.workspace,
      log_warnings: this.#trail.warnings(),
    };
    void this.#trail.emit(event);
  }

  async call(record: CallRecord, begin: SessionBegin): Promise<void> {
    this.begin(begin);
    this.#calls++;
    const redactor = this.#trail.redactor();
    const { outcome, refusal } = outcomeOf(record.structured);
    const started = record.tool === "exec_command" && record.structured?.ok === true;
    const event: ToolCallEvent = {
      ...this.#common(record.startedAt),
      event: "tool_call",
      tool: record.tool.length > MAX_TOOL_NAME_CHARS ? `${record.tool.slice(0, MAX_TOOL_NAME_CHARS)}…` : record.tool,
      request_id: record.requestId,
      arguments: await redactor.arguments(record.tool, record.arguments ?? {}),
      outcome,
      duration_ms: Math.round(record.durationMs * 1000) / 1000,
      cancelled: record.cancelled,
      refusal,
      facts: callFacts(record.tool, record.parsed, record.structured, {
        mode: this.#trail.mode(),
        grants: record.grants,
        sandbox: started ? record.sandbox() : null,
        text: (value) => redactor.text(value),
      }),
    };
    await this.#trail.emit(event);
  }

  /** Records the session's end (once) and syncs the log. */
  end(): void {
    if (!this.#begun || this.#ended) return;
    this.#ended = true;
    this.#trail.track(this, false);
    const now = Date.now();
    void this.#trail.emit({
      ...this.#common(now),
      event: "session_end",
      reason: this.#trail.endReason(),
      duration_ms: now - this.#startedAt,
      calls: this.#calls,
    });
    void this.#trail.sync();
  }
}
