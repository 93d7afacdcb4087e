/**
 * How the commit makes its staged contents durable before installing them
 * (commit.ts, phase stage): an fsync per temp file, or, for a large patch,
 * the temp files written first and one syncfs(2) per file system they lie
 * on. Both leave every byte and mode durable before the first rename; the
 * second costs one journal commit instead of one per file (1,000 files of
 * 3 KB in one directory: ~94 ms with 16 fsyncs in flight, ~23 ms with one
 * syncfs, docs/performance.md).
 *
 * syncfs flushes everything dirty on that file system, other programs'
 * writes too, and reports a writeback error only since Linux 5.8. So it is
 * chosen only when all of these hold:
 * - the file backend can sync a file system (`Handle.syncsFileSystem`): the
 *   Linux fd backend's handles call syncfs(2); the POSIX fd backend has no
 *   such call, so there every temp file is fsynced, however large the patch;
 * - at least {@linkcode SYNCFS_MIN_FILES} files are staged (below that the
 *   fsyncs cost little, and a small patch never waits for a build's output);
 * - the kernel reports syncfs errors (5.8 or later);
 * - the machine has at most {@linkcode SYNCFS_MAX_DIRTY_BYTES} of data
 *   waiting to be written (Dirty + Writeback in /proc/meminfo), so the wait
 *   for other programs' data stays bounded.
 *
 * @example
 * ```ts
 * const quiet = { release: "6.8.0", dirtyBytes: () => 4096 };
 * const batch = syncStrategy({ files: 1000, syncsFileSystem: true }, quiet); // "syncfs"
 * const small = syncStrategy({ files: 3, syncsFileSystem: true }, quiet); // "fsync"
 * const posix = syncStrategy({ files: 1000, syncsFileSystem: false }, quiet); // "fsync"
 * ```
 */
import { readKernelFile } from "../os/fs_at.ts";

/** Staged files from which one syncfs per file system replaces an fsync per file. */
export const SYNCFS_MIN_FILES = 32;

/** Data waiting to be written on the machine (Dirty + Writeback) above which syncfs is not used. */
export const SYNCFS_MAX_DIRTY_BYTES = 64 * 1024 * 1024;

/** How staged contents are made durable. */
export type SyncStrategy = "fsync" | "syncfs";

/** What the choice depends on; tests substitute each. */
export interface DurabilityOptions {
  /** Staged files from which syncfs may be chosen (default {@linkcode SYNCFS_MIN_FILES}). */
  syncfsMinFiles?: number;
  /** The kernel release (default `Deno.osRelease()`). */
  release?: string;
  /** Bytes waiting to be written on the machine, or null when unknown (default: from /proc/meminfo). */
  dirtyBytes?: () => number | null;
}

/**
 * Whether syncfs(2) on kernel `release` reports writeback errors (Linux 5.8 and later).
 *
 * @example
 * ```ts
 * syncfsReportsErrors("5.4.0-150-generic"); // false
 * syncfsReportsErrors("6.18.44"); // true
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
 *
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

/** What is staged: how many files, and whether the backend holding their directories can sync a file system. */
export interface Staged {
  files: number;
  /** `Handle.syncsFileSystem` of every directory written in (true on Linux's fd backend only). */
  syncsFileSystem: boolean;
}

/**
 * How the `staged.files` contents are made durable (see the module doc).
 *
 * @example
 * ```ts
 * syncStrategy({ files: 500, syncsFileSystem: true }, { release: "5.4.0", dirtyBytes: () => 0 }); // "fsync": syncfs would not report errors
 * ```
 */
export function syncStrategy(staged: Staged, options: DurabilityOptions = {}): SyncStrategy {
  if (!staged.syncsFileSystem) return "fsync";
  if (staged.files < (options.syncfsMinFiles ?? SYNCFS_MIN_FILES)) return "fsync";
  if (!syncfsReportsErrors(options.release ?? Deno.osRelease())) return "fsync";
  const dirty = (options.dirtyBytes ?? machineDirtyBytes)();
  return dirty !== null && dirty <= SYNCFS_MAX_DIRTY_BYTES ? "syncfs" : "fsync";
}
