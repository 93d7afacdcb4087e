/**
 * The result shape exec_command, write_stdin and kill_command share, and the
 * one function that renders a poll of the registry into it (structured data
 * plus a readable summary).
 *
 * @example
 * return commandOutput(ctx.services.commands.poll(command, args.max_output_bytes), args.yield_time_ms);
 */
import { z } from "zod";
import type { CommandPoll } from "../exec/registry.ts";
import type { StreamPreview } from "../exec/preview.ts";
import type { ToolOutput } from "./tool.ts";

/** The most read_output returns per call (its `limit` maximum). */
const READ_OUTPUT_MAX_LIMIT = 65536;
/** The shortest wait a suggested poll asks for (a request with yield_time_ms 0 must not suggest busy polling). */
const MIN_SUGGESTED_POLL_MS = 1000;

/** The machine-readable next step a command result suggests. */
export const nextActionSchema = z.object({
  tool: z.enum(["write_stdin", "read_output"]),
  arguments: z.record(z.string(), z.unknown()),
});

/** The shape exec_command, write_stdin and kill_command return. */
export const commandResultSchema = z.object({
  command_id: z.string(),
  cmd: z.string(),
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

type NextAction = z.infer<typeof nextActionSchema>;

function readAction(commandId: string, stream: "stdout" | "stderr", preview: StreamPreview): NextAction[] {
  if (!preview.omitted) return [];
  const { start, end } = preview.omitted;
  return [{
    tool: "read_output",
    arguments: {
      output_ref: `command:${commandId}:${stream}`,
      offset: start,
      limit: Math.min(READ_OUTPUT_MAX_LIMIT, end - start),
    },
  }];
}

function statusLine(poll: CommandPoll): string {
  if (poll.status === "running") return `running (command_id ${poll.command_id}, ${poll.duration_ms} ms so far)`;
  const how = poll.signal ? `killed by ${poll.signal}` : `exited with code ${poll.exit_code}`;
  return `${how} after ${poll.duration_ms} ms (command_id ${poll.command_id})`;
}

/** Renders a poll as the tool result: next actions for polling (while running) and for truncated streams. */
export function commandOutput(poll: CommandPoll, yieldTimeMs: number, hint: string | null = null): ToolOutput {
  const nextActions: NextAction[] = [];
  if (poll.status === "running") {
    nextActions.push({
      tool: "write_stdin",
      arguments: {
        command_id: poll.command_id,
        chars: "",
        yield_time_ms: Math.max(yieldTimeMs, MIN_SUGGESTED_POLL_MS),
      },
    });
  }
  nextActions.push(...readAction(poll.command_id, "stdout", poll.stdout));
  nextActions.push(...readAction(poll.command_id, "stderr", poll.stderr));
  const data = {
    command_id: poll.command_id,
    cmd: poll.cmd,
    status: poll.status,
    exit_code: poll.exit_code,
    signal: poll.signal,
    duration_ms: poll.duration_ms,
    tty: poll.tty,
    stdin_open: poll.stdin_open,
    stdout: poll.stdout.text,
    stderr: poll.stderr.text,
    stdout_truncated: poll.stdout.truncated,
    stderr_truncated: poll.stderr.truncated,
    stdout_offset: poll.stdout.offset,
    stderr_offset: poll.stderr.offset,
    stdout_total_bytes: poll.stdout_total_bytes,
    stderr_total_bytes: poll.stderr_total_bytes,
    hint,
    next_action: nextActions[0] ?? null,
    next_actions: nextActions,
  };
  const lines = [`$ ${poll.cmd}`, statusLine(poll)];
  for (const [name, preview] of [["stdout", poll.stdout], ["stderr", poll.stderr]] as const) {
    if (preview.text.length > 0) lines.push(`--- ${name} ---`, preview.text.replace(/\n$/, ""));
  }
  if (poll.stdout.text.length === 0 && poll.stderr.text.length === 0) lines.push("(no new output)");
  if (hint) lines.push(`hint: ${hint}`);
  for (const action of nextActions) lines.push(`next: ${action.tool} ${JSON.stringify(action.arguments)}`);
  return { text: lines.join("\n"), data };
}
