import { z } from "zod";

/** The machine-readable next step a command result suggests. */
export const nextActionSchema = z.object({
  tool: z.enum(["write_stdin", "read_output"]),
  arguments: z.record(z.string(), z.unknown()),
});

/** The shape exec_command, write_stdin and kill_command return. */
export const commandResultSchema = z.object({
  command_id: z.string(),
  status: z.enum(["running", "exited"]),
  exit_code: z.int().nullable(),
  signal: z.string().nullable(),
  duration_ms: z.number(),
  tty: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  stdout_offset: z.int(),
  stderr_offset: z.int(),
  next_action: nextActionSchema.nullable(),
  next_actions: z.array(nextActionSchema),
});
