/**
 * Installs a set of planned file changes all or nothing, acting only through
 * directory fds.
 *
 * Each change's parent directory is pinned once: opened beneath the
 * workspace root fd one component at a time, following no symlink (a missing
 * one is created with mkdirat in its pinned parent and opened the same way).
 * Every later step is an *at call on a pinned fd, so a directory swapped for
 * a symlink after matching can make the commit fail but never redirect it:
 * nothing is read, written or left outside the workspace.
 *
 * Each new content is written to an exclusive temp file in its pinned
 * directory, given its mode and fsynced. Every existing file the patch
 * replaces or deletes is then opened and locked (an exclusive flock, taken in
 * path order, held until the commit ends), so a concurrent writer in this or
 * another process that does the same waits and then sees the change instead
 * of silently overwriting it. Then, file by file: the parent's path is opened
 * again and must still be the pinned directory; the name must still be the
 * locked inode, and the locked fd must hold the bytes and mode that were
 * matched; the old file is hard-linked aside as a backup, and the temp file
 * is renamed over it (a new file is hard-linked into place instead, which
 * never replaces what may have appeared there). Directories are fsynced last.
 * Any failure puts every backup back by rename (the original inode, so bytes,
 * mode and owner return as they were), removes created files, temp files and
 * directories, and reports PATCH_CONFLICT, PATH_OUTSIDE_WORKSPACE,
 * WORKSPACE_READ_ONLY (a read-only file system) or PATCH_WRITE_FAILED.
 *
 * @example
 * await commitChanges(ws, [{ rel: "a.txt", before: null, after: { bytes, mode: null } }]);
 */
import * as path from "node:path";
import { eachLimited } from "../async/each_limited.ts";
import { ToolError } from "../errors.ts";
import {
  chmodFd,
  closeFd,
  errnoOf,
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
  unlinkAt,
  writeAllFd,
} from "../os/fs_at.ts";
import { ERRNO, O } from "../os/libc.ts";
import type { Workspace } from "../workspace/confine.ts";
import { type Change, sameBytes } from "./change.ts";

/** The file-system calls the commit makes (those of src/os/fs_at.ts); tests substitute failing ones. */
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
  /** Waits for an exclusive flock. */
  lockFd(fd: number): Promise<void>;
  linkAt(fromDir: number, from: string, toDir: number, to: string): void;
  renameAt(fromDir: number, from: string, toDir: number, to: string): void;
  unlinkAt(dirFd: number, name: string, directory?: boolean): void;
}

/** The real calls. */
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
  lockFd,
  linkAt,
  renameAt,
  unlinkAt,
};

/** File operations in flight at once (fsyncs overlap; one file's steps stay in order). */
export const COMMIT_CONCURRENCY = 16;
/** Mode a new file is created with, before the umask. */
const NEW_FILE_MODE = 0o666;
/** How a pinned directory is opened: readable, so it can be fsynced. */
const DIR_FLAGS = O.RDONLY | O.DIRECTORY;

/** A directory pinned by an fd opened beneath the workspace root. */
interface Dir {
  /** Workspace-relative path it was opened at. */
  rel: string;
  fd: number;
  dev: number;
  ino: number;
}

/** A step of the rollback. */
interface Undo {
  label: string;
  run: () => void;
}

function scratchName(suffix: string): string {
  return `.workcell-${crypto.randomUUID().slice(0, 13)}.${suffix}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `fn`, treating a missing file as done. */
function unlessMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/**
 * Commits `changes` atomically as a group (see the module doc). Changes
 * whose before and after are both null are ignored.
 *
 * @example
 * await commitChanges(ws, changes, failingFs); // tests inject faults through `fs`
 */
export async function commitChanges(ws: Workspace, changes: readonly Change[], fs: FsOps = FS_AT): Promise<void> {
  const undo: Undo[] = [];
  const dirs = new Map<string, Dir>();
  const temps = new Map<Change, string>();
  const touched = new Set<Dir>();
  const backups: { dir: Dir; name: string }[] = [];
  const locks = new Map<Change, { fd: number; stat: FdStat }>();
  const dirOf = (change: Change) => dirs.get(path.posix.dirname(change.rel))!;
  const nameOf = (change: Change) => path.posix.basename(change.rel);

  /** Opens the directory `rel` (creating it, and its missing parents, when `create`), once per commit. */
  const pin = (rel: string, create: boolean): Dir => {
    const known = dirs.get(rel);
    if (known !== undefined) return known;
    let fd: number;
    try {
      fd = fs.openBeneath(ws.fd, rel, DIR_FLAGS);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || !create || rel === ".") throw error;
      const parent = pin(path.posix.dirname(rel), true);
      const name = path.posix.basename(rel);
      try {
        fs.mkdirAt(parent.fd, name);
        touched.add(parent); // the new entry must be durable too
        undo.push({
          label: `remove directory ${rel}`,
          run: () => unlessMissing(() => fs.unlinkAt(parent.fd, name, true)),
        });
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error; // made by someone else meanwhile: use it
      }
      // Opened by name in its pinned parent: a symlink put there in between fails instead of being followed.
      fd = fs.openAt(parent.fd, name, DIR_FLAGS);
    }
    let stat: FdStat;
    try {
      stat = fs.statFd(fd);
    } catch (error) {
      closeFd(fd);
      throw error;
    }
    const dir = { rel, fd, dev: stat.dev, ino: stat.ino };
    dirs.set(rel, dir);
    return dir;
  };

  const pinParent = (change: Change, create: boolean): void => {
    try {
      pin(path.posix.dirname(change.rel), create);
    } catch (error) {
      throw directoryError(change, error);
    }
  };

  /** Checks that the parent's path still leads to the pinned directory (nothing acts by that path either way). */
  const recheckParent = (change: Change, dir: Dir): void => {
    let fd: number;
    try {
      fd = fs.openBeneath(ws.fd, dir.rel, O.PATH | O.DIRECTORY);
    } catch (error) {
      throw directoryError(change, error);
    }
    try {
      const stat = fs.statFd(fd);
      if (stat.dev !== dir.dev || stat.ino !== dir.ino) {
        throw new ToolError("PATCH_CONFLICT", `a directory above ${change.rel} was replaced before install`, {
          details: { path: change.rel },
        });
      }
    } finally {
      closeFd(fd);
    }
  };

  const writeTemp = async (change: Change): Promise<void> => {
    const { bytes, mode } = change.after!;
    const dir = dirOf(change);
    const temp = scratchName("tmp");
    const fd = fs.openAt(dir.fd, temp, O.WRONLY | O.CREAT | O.EXCL, mode ?? NEW_FILE_MODE);
    temps.set(change, temp);
    try {
      fs.writeAllFd(fd, bytes);
      if (mode !== null) fs.chmodFd(fd, mode); // the creation mode went through the umask
      await fs.syncFd(fd);
    } finally {
      closeFd(fd);
    }
  };

  /** Locks the regular file named by `change` (never following a symlink there: checkBaseline refuses it then). */
  const lock = async (change: Change): Promise<void> => {
    let pathFd: number;
    try {
      pathFd = fs.openAt(dirOf(change).fd, nameOf(change), O.PATH);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    let fd: number;
    let stat: FdStat;
    try {
      stat = fs.statFd(pathFd);
      if (stat.kind !== "file") return;
      // Reopened from the O_PATH fd, so what is locked is the inode just stat'ed (flock needs a real open).
      fd = fs.reopenFd(pathFd, O.RDONLY | O.NONBLOCK);
    } finally {
      closeFd(pathFd);
    }
    try {
      await fs.lockFd(fd);
    } catch (error) {
      closeFd(fd);
      throw error;
    }
    locks.set(change, { fd, stat });
  };

  /** The target must still be what was matched: absent, or the locked inode holding the matched bytes and mode. */
  const checkBaseline = async (change: Change, dir: Dir): Promise<void> => {
    let info: FdStat | null = null;
    try {
      info = fs.statAt(dir.fd, nameOf(change));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const conflict = (why: string) => conflictError(change, why);
    if (change.before === null) {
      if (info !== null) throw conflict("was created");
      return;
    }
    if (info === null) throw conflict("was removed");
    if (info.kind !== "file") {
      throw conflict(info.kind === "symlink" ? "was replaced by a symlink" : "is no longer a regular file");
    }
    const held = locks.get(change);
    if (held === undefined || held.stat.ino !== info.ino || held.stat.dev !== info.dev) throw conflict("was replaced");
    // Read through the locked fd, not by name: what is compared is what the lock holds.
    const now = fs.statFd(held.fd);
    if (change.before.mode !== null && now.mode !== change.before.mode) throw conflict("changed mode");
    if (now.size !== change.before.bytes.length || !sameBytes(await fs.readAllFd(held.fd), change.before.bytes)) {
      throw conflict("changed");
    }
  };

  const install = async (change: Change): Promise<void> => {
    const dir = dirOf(change);
    const name = nameOf(change);
    recheckParent(change, dir);
    await checkBaseline(change, dir);
    if (change.before !== null) {
      const backup = scratchName("bak");
      fs.linkAt(dir.fd, name, dir.fd, backup);
      backups.push({ dir, name: backup });
      undo.push({
        label: `restore ${change.rel}`,
        run: () => {
          fs.renameAt(dir.fd, backup, dir.fd, name);
          unlessMissing(() => fs.unlinkAt(dir.fd, backup)); // rename between two links of one inode is a no-op
        },
      });
    }
    const temp = temps.get(change);
    if (temp === undefined) {
      fs.unlinkAt(dir.fd, name);
    } else if (change.before !== null) {
      fs.renameAt(dir.fd, temp, dir.fd, name);
      temps.delete(change);
    } else {
      // A new file is linked into place: link() never replaces, so a file (or symlink) that appeared
      // since the baseline check is a conflict instead of being overwritten.
      try {
        fs.linkAt(dir.fd, temp, dir.fd, name);
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists) throw conflictError(change, "was created");
        throw error;
      }
      undo.push({ label: `remove ${change.rel}`, run: () => unlessMissing(() => fs.unlinkAt(dir.fd, name)) });
      fs.unlinkAt(dir.fd, temp);
      temps.delete(change);
    }
  };

  const active = changes.filter((change) => change.before !== null || change.after !== null);
  const writes = active.filter((change) => change.after !== null);
  try {
    try {
      for (const change of active) {
        // Only a file being written gets its missing directories created; a delete's must still be there.
        await labelled(`preparing the directory of ${change.rel}`, () => pinParent(change, change.after !== null));
        touched.add(dirOf(change));
      }
      await eachLimited(
        writes,
        COMMIT_CONCURRENCY,
        (change) => labelled(`writing the new content of ${change.rel}`, () => writeTemp(change)),
      );
      const replaced = active.filter((change) => change.before !== null).sort((a, b) => a.rel < b.rel ? -1 : 1);
      for (const change of replaced) await labelled(`locking ${change.rel}`, () => lock(change));
      await eachLimited(
        active,
        COMMIT_CONCURRENCY,
        (change) => labelled(`installing ${change.rel}`, () => install(change)),
      );
      await eachLimited(
        [...touched],
        COMMIT_CONCURRENCY,
        (dir) => labelled(`syncing ${dir.rel}`, () => fs.syncFd(dir.fd)),
      );
    } catch (error) {
      const unrestored = rollback(undo, temps, dirOf, fs);
      for (const dir of touched) {
        try {
          await fs.syncFd(dir.fd);
        } catch {
          // Best effort: the rollback itself already succeeded or is reported.
        }
      }
      throw failure(error, unrestored);
    } finally {
      for (const held of locks.values()) closeFd(held.fd);
    }
    for (const { dir, name } of backups) {
      try {
        fs.unlinkAt(dir.fd, name);
      } catch {
        // Past the point of no return: a stray backup is left, the patch stands.
      }
    }
  } finally {
    for (const dir of dirs.values()) closeFd(dir.fd);
  }
}

/** Removes the temp files, then undoes in reverse order; returns what could not be undone. */
function rollback(undo: Undo[], temps: Map<Change, string>, dirOf: (change: Change) => Dir, fs: FsOps): string[] {
  const unrestored: string[] = [];
  for (const [change, temp] of temps) {
    try {
      unlessMissing(() => fs.unlinkAt(dirOf(change).fd, temp));
    } catch (error) {
      unrestored.push(`remove temp file ${path.posix.join(dirOf(change).rel, temp)}: ${describe(error)}`);
    }
  }
  for (const step of undo.reverse()) {
    try {
      step.run();
    } catch (error) {
      unrestored.push(`${step.label}: ${describe(error)}`);
    }
  }
  return unrestored;
}

function conflictError(change: Change, why: string): ToolError {
  return new ToolError("PATCH_CONFLICT", `${change.rel} ${why} since the patch was matched; nothing was written`, {
    details: { path: change.rel },
  });
}

/** Why the parent of `change` could not be opened by its path. */
function directoryError(change: Change, error: unknown): unknown {
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError("PATCH_CONFLICT", `the directory of ${change.rel} vanished before install`, {
      details: { path: change.rel },
    });
  }
  // Walked with O_NOFOLLOW: a component that is now a symlink (or no longer a directory) stops the walk.
  if (error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory) {
    return new ToolError(
      "PATH_OUTSIDE_WORKSPACE",
      `a directory above ${change.rel} was replaced by a symlink (or a non-directory) that may lead outside the workspace; nothing was written`,
      { details: { path: change.rel } },
    );
  }
  return error;
}

/** An OS error with what the commit was doing when it happened. */
class StepError extends Error {
  constructor(readonly doing: string, readonly error: unknown) {
    super(`${doing}: ${describe(error)}`);
  }
}

async function labelled<T>(doing: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof ToolError || error instanceof StepError ? error : new StepError(doing, error);
  }
}

function failure(error: unknown, unrestored: string[]): ToolError {
  const rolledBack = unrestored.length === 0
    ? "Every file was left as it was before the patch."
    : `ROLLBACK INCOMPLETE, check these by hand: ${unrestored.join("; ")}`;
  if (error instanceof ToolError) {
    return new ToolError(error.code, `${error.message}. ${rolledBack}`, {
      details: { ...error.details, unrestored },
      cause: error,
    });
  }
  const doing = error instanceof StepError ? error.doing : "committing the patch";
  const cause = error instanceof StepError ? error.error : error;
  const code = errnoOf(cause) === ERRNO.EROFS ? "WORKSPACE_READ_ONLY" : "PATCH_WRITE_FAILED";
  return new ToolError(code, `${doing} failed: ${describe(cause)}. ${rolledBack}`, {
    details: { os_error: describe(cause), unrestored },
    cause: error,
  });
}
