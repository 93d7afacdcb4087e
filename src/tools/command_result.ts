/** The result exec_command, write_stdin and kill_command share, and the one renderer of a registry poll into it. */
import { z } from "../zod.ts";
import type { CommandPoll } from "../exec/views.ts";
import { gapLine, type StreamPreview } from "../exec/preview.ts";
import type { ByteRange } from "../exec/output_stream.ts";
import type { ToolOutput } from "./tool.ts";
import { dataBudget, jsonChars, jsonStringChars, MAX_TEXT_BYTES } from "../paging/budget.ts";
import { BYTES, JSON_CHARS, type Measure, windowOutput } from "./output_window.ts";

/** The most read_output returns per call (its `limit` maximum). */
const READ_OUTPUT_MAX_LIMIT = 65536;
/** The shortest wait a suggested poll asks for (a request with yield_time_ms 0 must not suggest busy polling). */
const MIN_SUGGESTED_POLL_MS = 1000;
/** Default bytes per stream in a result: both full stay under 32,000 characters of JSON (docs/results.md). */
export const DEFAULT_PREVIEW_BYTES = 12 * 1024;
/** Characters of the command echoed back (the caller has it whole). */
export const MAX_CMD_ECHO_CHARS = 1000;
/** Room kept for what is not stream text (gap lines, offsets' digits, next lines). */
const SLACK = 512;

/** The max_output_bytes argument of exec_command and write_stdin. */
export const maxOutputBytesSchema = z.int().min(256).max(1048576).default(DEFAULT_PREVIEW_BYTES).describe(
  "Bytes of each stream shown in this result's preview (the result ceiling may show less).",
);

/** The machine-readable next step a command result suggests. */
export const nextActionSchema = z.object({
  tool: z.enum(["write_stdin", "read_output"]),
  arguments: z.record(z.string(), z.unknown()),
});

/** The shape exec_command, write_stdin and kill_command return. */
export const commandResultSchema = z.object({
  command_id: z.string(),
  cmd: z.string().describe(`The command, its first ${MAX_CMD_ECHO_CHARS} characters (then "…").`),
  status: z.enum(["running", "exited"]),
  exit_code: z.int().nullable(),
  signal: z.string().nullable().describe('The signal that ended the command, e.g. "SIGTERM".'),
  duration_ms: z.number(),
  tty: z.boolean(),
  stdin_open: z.boolean().describe("Whether write_stdin can still send input."),
  stdout: z.string().describe("Output since the last poll (head and tail with a marker when truncated)."),
  stderr: z.string(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  stdout_offset: z.int().describe("Absolute offset in the stream where this result's output starts."),
  stderr_offset: z.int(),
  stdout_total_bytes: z.int().describe("Bytes the command has written to the stream so far."),
  stderr_total_bytes: z.int(),
  hint: z.string().nullable().describe("Why the command may have failed under the sandbox, and how to proceed."),
  next_action: nextActionSchema.nullable().describe("The first of next_actions, or null."),
  next_actions: z.array(nextActionSchema),
});

/** A command result as its schema types it. */
export type CommandResult = z.infer<typeof commandResultSchema>;
type NextAction = z.infer<typeof nextActionSchema>;
type Stream = "stdout" | "stderr";

function readAction(commandId: string, stream: Stream, gap: ByteRange | undefined): NextAction[] {
  if (!gap) return [];
  return [{
    tool: "read_output",
    arguments: {
      output_ref: `command:${commandId}:${stream}`,
      offset: gap.start,
      limit: Math.min(READ_OUTPUT_MAX_LIMIT, gap.end - gap.start),
    },
  }];
}

function statusLine(poll: CommandPoll): string {
  if (poll.status === "running") return `running (command_id ${poll.command_id}, ${poll.duration_ms} ms so far)`;
  const how = poll.signal ? `killed by ${poll.signal}` : `exited with code ${poll.exit_code}`;
  return `${how} after ${poll.duration_ms} ms (command_id ${poll.command_id})`;
}

/** Splits `room` between two needs: each whole when both fit, else the smaller whole if under half, else halves. */
function share(first: number, second: number, room: number): [number, number] {
  if (first + second <= room) return [first, second];
  const half = Math.floor(room / 2);
  if (second <= half) return [room - second, second];
  if (first <= half) return [first, room - first];
  return [half, room - half];
}

interface Shown {
  text: string;
  gaps: ByteRange[];
}

/** The streams within `room` (in `measure`), each re-cut only when the two do not fit as they are. */
function fitStreams(poll: CommandPoll, room: number, measure: Measure): Record<Stream, Shown> {
  const size = (preview: StreamPreview) => preview.parts.reduce((sum, part) => sum + measure.size(part.text), 0);
  const rooms = share(size(poll.stdout), size(poll.stderr), room);
  const show = (preview: StreamPreview, streamRoom: number): Shown => {
    const { pieces, gaps } = windowOutput(preview.offset, preview.parts, streamRoom, measure);
    let text = "";
    for (const piece of pieces) {
      const gap = gaps.find((range) => range.end === piece.start);
      if (gap) text += `${text === "" || text.endsWith("\n") ? "" : "\n"}${gapLine(gap, preview.retained)}\n`;
      text += piece.text;
    }
    return { text, gaps };
  };
  return { stdout: show(poll.stdout, rooms[0]), stderr: show(poll.stderr, rooms[1]) };
}

/**
 * Renders a poll as the tool result: each stream's head and tail within both bounds, then the calls that continue.
 * @example
 * ```ts
 * declare const poll: import("../exec/views.ts").CommandPoll;
 * commandOutput(poll, 10_000, 48_000).text;
 * ```
 */
export function commandOutput(
  poll: CommandPoll,
  yieldTimeMs: number,
  maxResultChars: number,
  hint: string | null = null,
): ToolOutput<CommandResult> {
  const poller: NextAction[] = poll.status !== "running" ? [] : [{
    tool: "write_stdin",
    arguments: {
      command_id: poll.command_id,
      chars: "",
      yield_time_ms: Math.max(yieldTimeMs, MIN_SUGGESTED_POLL_MS),
    },
  }];
  const actions = (shown: Record<Stream, Shown>) => [
    ...poller,
    ...readAction(poll.command_id, "stdout", shown.stdout.gaps[0]),
    ...readAction(poll.command_id, "stderr", shown.stderr.gaps[0]),
  ];
  const cmd = poll.cmd.length > MAX_CMD_ECHO_CHARS ? `${poll.cmd.slice(0, MAX_CMD_ECHO_CHARS)}…` : poll.cmd;
  const build = (shown: Record<Stream, Shown>): CommandResult => {
    const nextActions = actions(shown);
    return {
      command_id: poll.command_id,
      cmd,
      status: poll.status,
      exit_code: poll.exit_code,
      signal: poll.signal,
      duration_ms: poll.duration_ms,
      tty: poll.tty,
      stdin_open: poll.stdin_open,
      stdout: shown.stdout.text,
      stderr: shown.stderr.text,
      stdout_truncated: shown.stdout.gaps.length > 0,
      stderr_truncated: shown.stderr.gaps.length > 0,
      stdout_offset: poll.stdout.offset,
      stderr_offset: poll.stderr.offset,
      stdout_total_bytes: poll.stdout_total_bytes,
      stderr_total_bytes: poll.stderr_total_bytes,
      hint,
      next_action: nextActions[0] ?? null,
      next_actions: nextActions,
    };
  };
  // As polled when that fits (its pieces only moved to line ends), else re-cut to the ceiling.
  let data = build(fitStreams(poll, Infinity, JSON_CHARS));
  const budget = dataBudget(maxResultChars);
  if (jsonChars(data) > budget) {
    const fixed = jsonChars(data) - jsonStringChars(data.stdout) - jsonStringChars(data.stderr);
    data = build(fitStreams(poll, budget - fixed - SLACK, JSON_CHARS));
  }
  return { text: renderText(poll, cmd, actions, hint), data };
}

function renderText(
  poll: CommandPoll,
  cmd: string,
  actions: (shown: Record<Stream, Shown>) => NextAction[],
  hint: string | null,
): string {
  const compose = (shown: Record<Stream, Shown>) => {
    const lines = [`$ ${cmd}`];
    for (const name of ["stdout", "stderr"] as const) {
      if (shown[name].text.length > 0) lines.push(`--- ${name} ---`, shown[name].text.replace(/\n$/, ""));
    }
    if (poll.stdout.text.length === 0 && poll.stderr.text.length === 0) lines.push("(no new output)");
    lines.push(statusLine(poll));
    if (hint) lines.push(`hint: ${hint}`);
    for (const action of actions(shown)) lines.push(`next: ${action.tool} ${JSON.stringify(action.arguments)}`);
    return lines.join("\n");
  };
  // The lines around the streams at their longest: read_output calls with the largest offsets.
  const empty: Shown = { text: "", gaps: [{ start: Number.MAX_SAFE_INTEGER, end: Number.MAX_SAFE_INTEGER }] };
  const room = MAX_TEXT_BYTES - BYTES.size(compose({ stdout: empty, stderr: empty })) - SLACK;
  return compose(fitStreams(poll, room, BYTES));
}
