/** `workcell --audit-summary FILE`: a per-session summary of an audit log and its rotated files, for a CI job's end. */
import * as path from "node:path";
import { AUDIT_LIMITS } from "./limits.ts";
import { rotatedName } from "./file.ts";
import type { AuditEvent, CommandFacts, SessionEndEvent, SessionStartEvent, ToolCallEvent } from "./event.ts";

/** Items listed per session and kind (commands, files, refusals); the rest is counted. */
export const SUMMARY_LISTED = 20;

/** The events of a log and the files they came from. */
export interface AuditLogRead {
  files: string[];
  events: AuditEvent[];
  unreadable: number;
}

async function* lines(file: string): AsyncGenerator<string> {
  using handle = await Deno.open(file);
  let buffered = "";
  for await (const chunk of handle.readable.pipeThrough(new TextDecoderStream())) {
    const parts = (buffered + chunk).split("\n");
    buffered = parts.pop()!;
    yield* parts;
  }
  if (buffered !== "") yield buffered;
}

/**
 * Reads `file` and its rotated files (FILE.5 … FILE.1, then FILE); throws NotFound when `file` itself is missing.
 * @example
 * ```ts
 * const { events, unreadable } = await readAuditLog("audit.jsonl");
 * ```
 */
export async function readAuditLog(file: string): Promise<AuditLogRead> {
  await Deno.stat(file);
  const rotated = Array.from({ length: AUDIT_LIMITS.keptFiles }, (_, i) => rotatedName(file, i + 1)).reverse();
  const files: string[] = [];
  const events: AuditEvent[] = [];
  let unreadable = 0;
  for (const candidate of [...rotated, file]) {
    if (!(await Deno.stat(candidate).then((info) => info.isFile, () => false))) continue;
    files.push(candidate);
    for await (const line of lines(candidate)) {
      if (line.trim() === "") continue;
      try {
        const event = JSON.parse(line);
        if (event === null || typeof event !== "object" || typeof event.event !== "string") throw new Error();
        events.push(event as AuditEvent);
      } catch {
        unreadable++;
      }
    }
  }
  return { files, events, unreadable };
}

/** What the summary gathers of one session. */
class SessionTally {
  readonly id: string;
  readonly transport: string;
  start: SessionStartEvent | null = null;
  end: SessionEndEvent | null = null;
  calls = 0;
  failed = 0;
  readonly perTool = new Map<string, { calls: number; failed: number }>();
  readonly commands = new Map<string, { cmd: string; state: CommandFacts }>();
  /** Commands that never started: [cmd, why]. */
  readonly unstarted: [string, string][] = [];
  readonly files = new Map<string, { op: string; movedTo: string | null; added: number; removed: number }>();
  readonly refusals: string[] = [];
  readonly permissions: string[] = [];

  constructor(event: AuditEvent) {
    this.id = event.session;
    this.transport = event.transport;
  }
}

function subject(call: ToolCallEvent): string {
  const args = (call.arguments ?? {}) as Record<string, unknown>;
  const value = args.cmd ?? args.path ?? args.paths ?? args.command_id ?? args.output_ref ?? args.rev;
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object" && "bytes" in value) return `(${value.bytes} bytes)`;
  return JSON.stringify(value);
}

/** What a refusal refused: the call's subject, or an exec_command's workdir when that was refused before the gate. */
function refused(call: ToolCallEvent): string {
  const exec = call.facts.exec;
  if (call.tool === "exec_command" && exec && exec.gate === null) {
    return `exec_command workdir ${exec.workdir} (so ${subject(call)} did not run)`;
  }
  const what = subject(call);
  return `${call.tool}${what ? ` ${what}` : ""}`;
}

function addCall(session: SessionTally, call: ToolCallEvent): void {
  session.calls++;
  const failed = call.outcome !== "ok";
  if (failed) session.failed++;
  const perTool = session.perTool.get(call.tool) ?? { calls: 0, failed: 0 };
  perTool.calls++;
  if (failed) perTool.failed++;
  session.perTool.set(call.tool, perTool);
  const { command, patch, permissions } = call.facts;
  if (command) {
    const known = session.commands.get(command.command_id);
    const cmd = call.tool === "exec_command" ? subject(call) : known?.cmd ?? `(${command.command_id})`;
    session.commands.set(command.command_id, { cmd, state: command });
  } else if (call.tool === "exec_command" && call.facts.exec?.gate?.decision === "allowed") {
    session.unstarted.push([subject(call), call.outcome]);
  }
  for (const file of patch?.files ?? []) {
    const seen = session.files.get(file.path);
    session.files.set(file.path, {
      op: seen && seen.op === "add" && file.op === "update" ? "add" : file.op,
      movedTo: file.moved_to,
      added: (seen?.added ?? 0) + file.added,
      removed: (seen?.removed ?? 0) + file.removed,
    });
  }
  if (call.refusal) session.refusals.push(`${refused(call)} — ${call.refusal.rule}`);
  if (permissions) {
    const granted = permissions.granted.length > 0 ? `granted ${permissions.granted.join(", ")}` : "nothing granted";
    session.permissions.push(`asked ${permissions.asked.join(", ")}: ${permissions.status}, ${granted}`);
  }
}

/**
 * A duration in words.
 * @example
 * ```ts
 * formatDuration(252_000); // "4 min 12 s"
 * ```
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A titled list of the session's summary, or nothing when `items` is empty. */
function section(title: string, items: string[]): string[] {
  if (items.length === 0) return [];
  const shown = items.slice(0, SUMMARY_LISTED).map((item) => `    ${item}`);
  if (items.length > SUMMARY_LISTED) shown.push(`    … and ${items.length - SUMMARY_LISTED} more`);
  return [`  ${title}:`, ...shown];
}

/** A command's line; one whose last state is running was stopped by the session's end (sessions kill theirs). */
function commandLine(session: SessionTally, cmd: string, state: CommandFacts): string {
  if (state.status !== "running") return `${(state.signal || `exit ${state.exit_code}`).padEnd(9)} ${cmd}`;
  return `${"running".padEnd(9)} ${cmd} (${
    session.end?.reason ? "left running when the session ended, which killed it" : "running when the log ends"
  })`;
}

const OP_LETTERS: Record<string, string> = { add: "A", update: "M", delete: "D", move: "R" };

function renderSession(session: SessionTally): string[] {
  const { start, end } = session;
  const about = [
    session.transport,
    start?.client ? `client ${start.client.name} ${start.client.version}` : "client unknown",
    ...(start?.mode ? [`${start.mode} mode`] : []),
    ...(start?.workspace ? [`workspace ${start.workspace}`] : []),
  ];
  const when = start?.time
    ? `${start.time}${end ? `, ${formatDuration(end.duration_ms)}` : ""}`
    : "start not in the log";
  const ended = end?.reason ? `ended: ${end.reason}` : "no end recorded (still running, or the server died)";
  const tools = [...session.perTool].sort((a, b) => b[1].calls - a[1].calls).map(([tool, count]) =>
    `${tool} ${count.calls}${count.failed ? ` (${count.failed} failed)` : ""}`
  );
  const commands = [
    ...[...session.commands.values()].map(({ cmd, state }) => commandLine(session, cmd, state)),
    ...session.unstarted.map(([cmd, why]) => `${"not run".padEnd(9)} ${cmd} (${why})`),
  ];
  const files = [...session.files].map(([file, change]) =>
    `${OP_LETTERS[change.op] ?? "?"} ${file}${change.movedTo ? ` -> ${change.movedTo}` : ""}${
      change.op === "delete" ? "" : ` (+${change.added} -${change.removed})`
    }`
  );
  return [
    `session ${session.id} (${about.join(", ")})`,
    `  ${when}; ${ended}`,
    `  calls: ${session.calls}${session.failed ? `, ${session.failed} failed` : ""}${
      tools.length ? ` — ${tools.join(", ")}` : ""
    }`,
    ...section(`commands (${commands.length})`, commands),
    ...section(`files changed (${files.length})`, files),
    ...section(`refusals (${session.refusals.length})`, session.refusals),
    ...section("permissions", session.permissions),
  ];
}

/**
 * The summary of a log's events, session by session in the order they first appear.
 * @example
 * ```ts
 * summarizeEvents({ files: ["audit.jsonl"], events: [], unreadable: 0 }); // "audit.jsonl: no sessions"
 * ```
 */
export function summarizeEvents(log: AuditLogRead): string {
  const sessions = new Map<string, SessionTally>();
  for (const event of log.events) {
    const session = sessions.get(event.session) ?? new SessionTally(event);
    sessions.set(event.session, session);
    if (event.event === "session_start") session.start = event;
    else if (event.event === "session_end") session.end = event;
    else if (event.event === "tool_call") addCall(session, event);
  }
  const names = log.files.map((file) => path.basename(file)).join(", ");
  const calls = [...sessions.values()].reduce((sum, session) => sum + session.calls, 0);
  const header = `${names}: ${sessions.size === 0 ? "no sessions" : `${sessions.size} session(s), ${calls} call(s)`}${
    log.unreadable ? `, ${log.unreadable} unreadable line(s)` : ""
  }`;
  return [header, ...[...sessions.values()].flatMap((session) => ["", ...renderSession(session)])].join("\n");
}

/**
 * Prints the summary of the log at `file` (resolved against `launchCwd`) to stdout, or why it cannot be read to
 * stderr; returns the exit status.
 * @example
 * ```ts
 * Deno.exit(await printAuditSummary("audit.jsonl", Deno.cwd()));
 * ```
 */
export async function printAuditSummary(file: string, launchCwd = Deno.cwd()): Promise<number> {
  const resolved = path.resolve(launchCwd, file);
  try {
    console.log(summarizeEvents(await readAuditLog(resolved)));
    return 0;
  } catch (error) {
    console.error(`workcell: --audit-summary ${resolved}: ${(error as Error).message}`);
    return 1;
  }
}
