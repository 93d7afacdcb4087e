/**
 * The file-system calls the patch commit makes, as one value: the real ones
 * (src/os/fs_at.ts) by default, failing or interrupting ones in tests, so a
 * fault can be put at any single step of a commit.
 *
 * @example
 * ```ts
 * const failingSync: FsOps = { ...FS_AT, syncFd: () => Promise.reject(new Error("EIO")) };
 * ```
 */
import {
  chmodFd,
  type FdStat,
  linkAt,
  lockFd,
  mkdirAt,
  openAt,
  openBeneath,
  readAllFd,
  renameAt,
  reopenFd,
  statAt,
  statFd,
  syncFd,
  syncFs,
  unlinkAt,
  writeAllFd,
} from "../os/fs_at.ts";

/**
 * The file-system calls the commit makes (those of src/os/fs_at.ts); tests substitute failing ones.
 *
 * @example
 * ```ts
 * const calls: string[] = [];
 * const counting: FsOps = { ...FS_AT, linkAt: (...args) => (calls.push("linkAt"), FS_AT.linkAt(...args)) };
 * ```
 */
export interface FsOps {
  openBeneath(dirFd: number, relative: string, flags: number): number;
  openAt(dirFd: number, name: string, flags: number, mode?: number): number;
  reopenFd(fd: number, flags: number): number;
  mkdirAt(dirFd: number, name: string): void;
  statFd(fd: number): FdStat;
  /** lstat of `name` in `dirFd`. */
  statAt(dirFd: number, name: string): FdStat;
  readAllFd(fd: number): Promise<Uint8Array>;
  writeAllFd(fd: number, bytes: Uint8Array): void;
  chmodFd(fd: number, mode: number): void;
  syncFd(fd: number): Promise<void>;
  /** syncfs: makes everything on the file system of `fd` durable (src/patch/durability.ts says when). */
  syncFs(fd: number): Promise<void>;
  /** Waits for an exclusive flock. */
  lockFd(fd: number): Promise<void>;
  linkAt(fromDir: number, from: string, toDir: number, to: string): void;
  renameAt(fromDir: number, from: string, toDir: number, to: string): void;
  unlinkAt(dirFd: number, name: string, directory?: boolean): void;
}

/**
 * The real calls.
 *
 * @example
 * ```ts
 * Object.keys(FS_AT).length; // 14
 * ```
 */
export const FS_AT: FsOps = {
  openBeneath,
  openAt,
  reopenFd,
  mkdirAt,
  statFd,
  statAt,
  readAllFd,
  writeAllFd,
  chmodFd,
  syncFd,
  syncFs,
  lockFd,
  linkAt,
  renameAt,
  unlinkAt,
};
