/**
 * The bounds of the audit trail, in one place: the flag parser takes its
 * defaults from here, the writer and the redactor enforce them, and the
 * limits table of docs/runtime-contract.md quotes them.
 *
 * @example
 * ```ts
 * const line = new TextEncoder().encode(JSON.stringify({ event: "tool_call", tool: "read_file" }) + "\n");
 * if (line.length > AUDIT_LIMITS.maxEventBytes) console.error("too long");
 * ```
 */

/** The variable that names the audit log for clients that cannot pass `--audit-log`. */
export const AUDIT_LOG_ENV = "WORKCELL_AUDIT_LOG";

/** The audit trail's bounds. */
export const AUDIT_LIMITS = {
  /** Size at which the log is rotated (`--audit-log-max-bytes`' default). */
  defaultMaxBytes: 16 * 1024 * 1024,
  /** The smallest `--audit-log-max-bytes` accepted: room for the largest event. */
  minMaxBytes: 64 * 1024,
  /** Rotated files kept beside the log (FILE.1 the newest … FILE.5 the oldest). */
  keptFiles: 5,
  /** The longest event line; a longer one has its arguments and facts replaced by their digest. */
  maxEventBytes: 64 * 1024,
  /** A string argument longer than this is logged as its size and SHA-256, not its text. */
  maxInlineArgumentBytes: 4096,
  /** A digest of a value shorter than this carries no SHA-256: a short secret (a password typed to a prompt) could be guessed from it. */
  minHashedBytes: 32,
  /** Items of a list an event carries (the files of a patch, the items of an array argument). */
  maxListed: 200,
  /** How long a rotation waits for another process rotating the same log (its lock, flock) before it fails. */
  rotationLockWaitMs: 10_000,
} as const;
