/** Runtime limits of the command runner (the SPEC defaults). */
export const COMMAND_LIMITS = {
  /** Commands running at once. */
  maxActiveCommands: 32,
  /** Finished commands whose status and output are kept. */
  maxRetainedCommands: 64,
  /** Bytes retained per stream (head + tail). */
  perStreamBytes: 1024 * 1024,
  /** Bytes retained across all streams of all commands. */
  totalOutputBytes: 64 * 1024 * 1024,
  /** How long a finished command is kept, in milliseconds. */
  retentionMs: 30 * 60 * 1000,
} as const;
