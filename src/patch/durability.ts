import { readKernelFile } from "../os/fs_at.ts";

/** Staged files from which syncfs replaces per-file fsyncs (a small patch never waits for a build's output). */
export const SYNCFS_MIN_FILES = 32;

/** Dirty + Writeback bytes on the machine above which syncfs is not used: it bounds the wait for others' data. */
export const SYNCFS_MAX_DIRTY_BYTES = 64 * 1024 * 1024;

/** What the choice depends on; tests substitute each. */
export interface DurabilityOptions {
  syncfsMinFiles?: number;
  release?: string;
  /** Bytes waiting to be written on the machine; null when unknown (default: from /proc/meminfo). */
  dirtyBytes?: () => number | null;
}

/**
 * Whether syncfs(2) on kernel `release` reports writeback errors (Linux 5.8 and later).
 * @example
 * ```ts
 * syncfsReportsErrors("5.4.0-150-generic"); // false
 * ```
 */
export function syncfsReportsErrors(release: string): boolean {
  const match = /^(\d+)\.(\d+)/.exec(release);
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 5 || (major === 5 && minor >= 8);
}

/**
 * Dirty + Writeback of /proc/meminfo, in bytes; null when it cannot be read.
 * @example
 * ```ts
 * const waiting = machineDirtyBytes(); // e.g. 6385664
 * ```
 */
export function machineDirtyBytes(): number | null {
  let text: string;
  try {
    text = readKernelFile("/proc/meminfo");
  } catch {
    return null;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? NaN);
  const total = (kib("Dirty") + kib("Writeback")) * 1024;
  return Number.isFinite(total) ? total : null;
}

/**
 * How the `staged` files are made durable before the first rename (commit.ts, stage): an fsync per temp file, or one
 * syncfs(2) per file system once all are written (if the backend holding their directories can), one journal commit
 * instead of one per file (1,000 files of 3 KB in one directory: ~94 ms with 16 fsyncs in flight, ~23 ms with syncfs;
 * docs/performance.md). syncfs also flushes other programs' writes and reports writeback errors only since Linux 5.8,
 * hence the conditions.
 * @example
 * ```ts
 * syncStrategy({ files: 500, syncsFileSystem: true }, { release: "5.4.0", dirtyBytes: () => 0 }); // "fsync"
 * ```
 */
export function syncStrategy(
  staged: { files: number; syncsFileSystem: boolean },
  options: DurabilityOptions = {},
): "fsync" | "syncfs" {
  if (!staged.syncsFileSystem) return "fsync";
  if (staged.files < (options.syncfsMinFiles ?? SYNCFS_MIN_FILES)) return "fsync";
  if (!syncfsReportsErrors(options.release ?? Deno.osRelease())) return "fsync";
  const dirty = (options.dirtyBytes ?? machineDirtyBytes)();
  return dirty !== null && dirty <= SYNCFS_MAX_DIRTY_BYTES ? "syncfs" : "fsync";
}
