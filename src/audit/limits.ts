/** The variable that names the audit log for clients that cannot pass `--audit-log`. */
export const AUDIT_LOG_ENV = "WORKCELL_AUDIT_LOG";

/** The audit trail's bounds (flag defaults, writer and redactor limits); docs/runtime-contract.md quotes them. */
export const AUDIT_LIMITS = {
  /** Size at which the log is rotated (`--audit-log-max-bytes`' default). */
  defaultMaxBytes: 16 * 1024 * 1024,
  /** The smallest `--audit-log-max-bytes` accepted: room for the largest event. */
  minMaxBytes: 64 * 1024,
  keptFiles: 5,
  /** The longest event line; a longer one has its arguments and facts replaced by their digest. */
  maxEventBytes: 64 * 1024,
  /** A string argument longer than this is logged as its size and SHA-256, not its text. */
  maxInlineArgumentBytes: 4096,
  /** Shorter values get no SHA-256 in a digest: a short secret (a typed password) could be guessed from it. */
  minHashedBytes: 32,
  maxListed: 200,
  /** How long a rotation waits for another process's flock on the same log before it fails. */
  rotationLockWaitMs: 10_000,
} as const;
