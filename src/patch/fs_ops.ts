/**
 * The file-system calls the patch commit makes, as one value: the
 * workspace handles' own acts (src/workspace/handle.ts) by default, failing
 * or interrupting ones in tests, so a fault can be put at any single step of
 * a commit.
 *
 * @example
 * ```ts
 * const failingSync: FsOps = { ...HANDLE_OPS, sync: () => Promise.reject(new Error("EIO")) };
 * ```
 */
import type { FileStat, Handle, Reach } from "../workspace/handle.ts";

/**
 * The file-system calls the commit makes, each an act of a {@linkcode Handle}; tests substitute failing ones.
 *
 * @example
 * ```ts
 * const calls: string[] = [];
 * const counting: FsOps = { ...HANDLE_OPS, link: (...args) => (calls.push("link"), HANDLE_OPS.link(...args)) };
 * ```
 */
export interface FsOps {
  /** Opens the real path `rel` beneath `from`, following no symlink. */
  openBeneath(from: Handle, rel: string, expect: Reach): Handle;
  /** Opens the entry `name` of `dir`, following no symlink. */
  openEntry(dir: Handle, name: string, expect: Reach): Handle;
  mkdir(dir: Handle, name: string): void;
  /** Creates the new file `name` in `dir`, exclusively, open for writing; `exact`: with exactly `mode`. */
  create(dir: Handle, name: string, mode: number, exact: boolean): Handle;
  restat(handle: Handle): FileStat;
  /** lstat of `name` in `dir`. */
  statEntry(dir: Handle, name: string): FileStat;
  readAll(file: Handle): Promise<Uint8Array>;
  writeAll(file: Handle, bytes: Uint8Array): void;
  sync(handle: Handle): Promise<void>;
  /** Makes the whole file system `handle` lies on durable, where it can (src/patch/durability.ts says when). */
  syncFileSystem(handle: Handle): Promise<void>;
  /** Waits up to `waitMs` for an exclusive lock of the regular file, held until the handle is disposed. */
  lock(file: Handle, waitMs: number): Promise<void>;
  link(dir: Handle, from: string, to: string): void;
  rename(dir: Handle, from: string, to: string): void;
  remove(dir: Handle, name: string, directory?: boolean): void;
}

/**
 * The real calls: each handle's own act.
 *
 * @example
 * ```ts
 * Object.keys(HANDLE_OPS).length; // 14
 * ```
 */
export const HANDLE_OPS: FsOps = {
  openBeneath: (from, rel, expect) => from.openBeneath(rel, expect),
  openEntry: (dir, name, expect) => dir.openEntry(name, expect),
  mkdir: (dir, name) => dir.mkdir(name),
  create: (dir, name, mode, exact) => dir.create(name, mode, exact),
  restat: (handle) => handle.restat(),
  statEntry: (dir, name) => dir.statEntry(name),
  readAll: async (file) => await file.readAll(),
  writeAll: (file, bytes) => file.writeAll(bytes),
  sync: async (handle) => await handle.sync(),
  syncFileSystem: async (handle) => await handle.syncFileSystem(),
  lock: async (file, waitMs) => await file.lock(waitMs),
  link: (dir, from, to) => dir.link(from, to),
  rename: (dir, from, to) => dir.rename(from, to),
  remove: (dir, name, directory) => dir.remove(name, directory),
};
