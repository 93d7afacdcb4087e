/** Runtime limits of the command runner (the SPEC defaults). */
export const COMMAND_LIMITS = {
  maxActiveCommands: 32,
  /** Finished commands kept. */
  maxRetainedCommands: 64,
  /** Per stream: head + tail. */
  perStreamBytes: 1024 * 1024,
  totalOutputBytes: 64 * 1024 * 1024,
  /** How long a finished command is kept. */
  retentionMs: 30 * 60 * 1000,
} as const;
