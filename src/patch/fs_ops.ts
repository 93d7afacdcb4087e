import type { Handle, Reach } from "../workspace/handle.ts";

/** The commit's file-system calls, each a Handle's own act; tests swap in failing ones to fault any single step. */
export const HANDLE_OPS = {
  openBeneath: (from: Handle, rel: string, expect: Reach) => from.openBeneath(rel, expect),
  openEntry: (dir: Handle, name: string, expect: Reach) => dir.openEntry(name, expect),
  mkdir: (dir: Handle, name: string) => dir.mkdir(name),
  create: (dir: Handle, name: string, mode: number, exact: boolean) => dir.create(name, mode, exact),
  restat: (handle: Handle) => handle.restat(),
  statEntry: (dir: Handle, name: string) => dir.statEntry(name),
  readAll: async (file: Handle) => await file.readAll(),
  writeAll: (file: Handle, bytes: Uint8Array) => file.writeAll(bytes),
  sync: async (handle: Handle) => await handle.sync(),
  syncFileSystem: async (handle: Handle) => await handle.syncFileSystem(),
  lock: async (file: Handle, waitMs: number) => await file.lock(waitMs),
  link: (dir: Handle, from: string, to: string) => dir.link(from, to),
  rename: (dir: Handle, from: string, to: string) => dir.rename(from, to),
  remove: (dir: Handle, name: string, directory?: boolean) => dir.remove(name, directory),
};

/** The calls a commit makes: HANDLE_OPS, or a test's stand-in with the same signatures. */
export type FsOps = typeof HANDLE_OPS;
