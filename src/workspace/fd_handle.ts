/** The Handle: a confined object held by an fd, with the acts both backends share (opening, stat, listing: theirs). */
import * as path from "node:path";
import { fdDirectory, openAt, readAllFd, readAt } from "../os/fs_at.ts";
import { chmodFd, linkAt, lockFd, mkdirAt, renameAt, syncFd, unlinkAt, writeAllFd } from "../os/fs_change.ts";
import { type Name, nameText } from "../os/fs_call.ts";
import type { RawDirEntry } from "../os/fs_dir.ts";
import { closeFd } from "../os/fd.ts";
import { O } from "../os/libc.ts";
import { ToolError } from "../errors.ts";
import type { FileStat, Reach } from "./handle.ts";

/** Flags a regular file is read with: O_NONBLOCK and O_NOCTTY so that no open can hang or take a terminal. */
export const READ_FLAGS = O.RDONLY | O.NONBLOCK | O.NOCTTY;

/**
 * The stat of the fd just opened, through `stat`; the fd is closed when that fails (the handle never took it).
 * @example
 * ```ts
 * import { statFd } from "../os/fs_stat.ts";
 * declare const fd: number;
 * statOrClose(fd, statFd).kind;
 * ```
 */
export function statOrClose(fd: number, stat: (fd: number) => FileStat): FileStat {
  try {
    return stat(fd);
  } catch (error) {
    closeFd(fd);
    throw error;
  }
}

/**
 * A confined object held by a backend through an fd (-1 where it holds none: every act through it then fails with
 * EBADF): real paths, no act follows a symlink, tree changes are the patch commit's.
 */
export abstract class Handle implements Disposable {
  /** Always true: a path that does not exist opens into a MissingPath (handle.ts). */
  readonly exists = true as const;
  /** The workspace root's fd (not owned), which `isCurrent` walks from. */
  protected readonly root: number;
  #closed = false;

  constructor(
    root: number | null,
    protected readonly fd: number,
    /** Workspace-relative real path with `/` separators; "." for the root. */
    readonly rel: string,
    readonly abs: string,
    /** The object as it was when opened. */
    readonly stat: FileStat,
  ) {
    this.root = root ?? fd;
  }

  /** The object's stat now (it is the same object; its size, mode or mtime may have changed). */
  abstract restat(): FileStat;

  abstract entries(): RawDirEntry[];

  /** The entry `name` of the directory held, not following a symlink there (lstat). */
  abstract statEntry(name: Name): FileStat;

  /** Opens the entry `name` of the directory held, following no symlink (a symlink fails as `dir`). */
  abstract openEntry(name: Name, expect: Reach): Handle;

  /** Opens the real path `rel` beneath the directory held, one component at a time, following no symlink. */
  abstract openBeneath(rel: string, expect: Reach): Handle;

  /** Whether the path from the workspace root still leads, without a symlink, to this very object. */
  abstract isCurrent(): boolean;

  /** Whether syncFileSystem works: on Linux's backend (syncfs(2)); POSIX has none, so the commit fsyncs each file. */
  abstract readonly syncsFileSystem: boolean;

  /** Makes all writes to the object's file system durable, whoever wrote them (syncfs(2)); or rejects NotSupported. */
  abstract syncFileSystem(): Promise<void>;

  /** A handle of this backend on `fd`, a file just created in the directory held, open for reading and writing. */
  protected abstract adopt(fd: number, rel: string, abs: string): Handle;

  /** The fd the regular file held is read through (throws NOT_A_FILE for anything else). */
  protected abstract reader(): number;

  /** An fd fsync accepts for the object held. */
  protected abstract syncable(): number;

  /** The workspace-relative and absolute paths of the entry `name` of the directory held. */
  protected entryPaths(name: Name): [rel: string, abs: string] {
    const text = nameText(name);
    return [this.rel === "." ? text : `${this.rel}/${text}`, path.join(this.abs, text)];
  }

  /** A child's cwd for the directory held: the fd's name, entered by fchdir (valid while open), so no path resolves. */
  childCwd(): string {
    // The child enters this very fd (fchdir, or posix_spawn's addfchdir) while it is open, whatever its path now.
    return fdDirectory(this.fd);
  }

  /** Reads up to `buffer.length` bytes at `position` of the regular file held; 0 at its end. */
  read(buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number> {
    return readAt(this.reader(), buffer, position);
  }

  /** The whole content of the regular file held (the result may view a slightly longer buffer). */
  readAll(): Promise<Uint8Array<ArrayBuffer>> {
    return readAllFd(this.reader());
  }

  /** The first `length` bytes of the regular file held, fewer when it ends before. */
  async readPrefix(length: number): Promise<Uint8Array<ArrayBuffer>> {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const n = await this.read(buffer.subarray(filled), filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  }

  /** What a child's stdin gets to read the regular file held: an fd of this process. */
  childStdin(): Promise<number> {
    return Promise.resolve(this.reader());
  }

  mkdir(name: string): void {
    mkdirAt(this.fd, name);
  }

  /** Creates new file `name` exclusively, open to write: `mode` less the umask or, if `exact`, exactly (fchmod). */
  create(name: string, mode: number, exact: boolean): Handle {
    const fd = openAt(this.fd, name, O.RDWR | O.CREAT | O.EXCL, mode);
    const file = this.adopt(fd, ...this.entryPaths(name));
    try {
      // The creation mode went through the umask; the fd names the file created, whatever its path now leads to.
      if (exact) chmodFd(fd, mode);
    } catch (error) {
      file[Symbol.dispose]();
      unlinkAt(this.fd, name, false); // nothing is left behind by a create that failed
      throw error;
    }
    return file;
  }

  /** Hard-links the entry `from` as `to` in the directory held (fails with AlreadyExists when `to` exists). */
  link(from: string, to: string): void {
    linkAt(this.fd, from, this.fd, to);
  }

  /** Renames the entry `from` to `to` in the directory held, replacing `to` atomically. */
  rename(from: string, to: string): void {
    renameAt(this.fd, from, this.fd, to);
  }

  remove(name: string, directory = false): void {
    unlinkAt(this.fd, name, directory);
  }

  /** Writes all of `bytes` to the file held (one created by {@linkcode create}). */
  writeAll(bytes: Uint8Array): void {
    writeAllFd(this.fd, bytes);
  }

  sync(): Promise<void> {
    return syncFd(this.syncable());
  }

  /** Waits up to `waitMs` for an exclusive flock of the file held, released on dispose; else rejects with TimedOut. */
  lock(waitMs: number): Promise<void> {
    return lockFd(this.reader(), waitMs);
  }

  /** Closes the fd held; a second call does nothing (it could hit an fd number reused since). */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.fd >= 0) closeFd(this.fd);
  }

  /** Throws PATH_OUTSIDE_WORKSPACE unless the path still leads here: the check after a child (rg) walked it by path. */
  revalidate(): void {
    if (this.isCurrent()) return;
    throw new ToolError("PATH_OUTSIDE_WORKSPACE", `${this.rel} changed (a symlink was swapped in) during the call`, {
      hint: "Retry; symlinks that lead outside the workspace are never followed.",
      details: { path: this.rel },
    });
  }
}
