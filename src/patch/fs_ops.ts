import type { FileStat, Handle, Reach } from "../workspace/handle.ts";

/** The commit's file-system calls, each a Handle's own act; tests swap in failing ones to fault any single step. */
export interface FsOps {
  openBeneath(from: Handle, rel: string, expect: Reach): Handle;
  openEntry(dir: Handle, name: string, expect: Reach): Handle;
  mkdir(dir: Handle, name: string): void;
  create(dir: Handle, name: string, mode: number, exact: boolean): Handle;
  restat(handle: Handle): FileStat;
  statEntry(dir: Handle, name: string): FileStat;
  readAll(file: Handle): Promise<Uint8Array>;
  writeAll(file: Handle, bytes: Uint8Array): void;
  sync(handle: Handle): Promise<void>;
  syncFileSystem(handle: Handle): Promise<void>;
  lock(file: Handle, waitMs: number): Promise<void>;
  link(dir: Handle, from: string, to: string): void;
  rename(dir: Handle, from: string, to: string): void;
  remove(dir: Handle, name: string, directory?: boolean): void;
}

/** The real calls: each handle's own act. */
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
