/** What both fd-pinned backends share: acts through the held fd; opening, stat and listing are each backend's own. */
import * as path from "node:path";
import { fdDirectory, openAt, readAllFd, readAt } from "../os/fs_at.ts";
import { chmodFd, linkAt, lockFd, mkdirAt, renameAt, syncFd, unlinkAt, writeAllFd } from "../os/fs_change.ts";
import { type Name, nameText } from "../os/fs_call.ts";
import { closeFd } from "../os/fd.ts";
import { O } from "../os/libc.ts";
import { entryPath, type FileStat, Handle } from "./handle.ts";

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

/** An object held by an fd (-1 where a backend holds none: then every act through it fails with EBADF). */
export abstract class FdHandle extends Handle {
  /** The workspace root's fd (not owned), which `isCurrent` walks from. */
  protected readonly root: number;
  protected readonly fd: number;
  #closed = false;

  constructor(root: number | null, fd: number, rel: string, abs: string, stat: FileStat) {
    super(rel, abs, stat);
    this.root = root ?? fd;
    this.fd = fd;
  }

  /** A handle of this backend on `fd`, a file just created in the directory held, open for reading and writing. */
  protected abstract adopt(fd: number, rel: string, abs: string): FdHandle;

  /** The fd the regular file held is read through (throws NOT_A_FILE for anything else). */
  protected abstract reader(): number;

  /** An fd fsync accepts for the object held. */
  protected abstract syncable(): number;

  /** The workspace-relative and absolute paths of the entry `name` of the directory held. */
  protected entryPaths(name: Name): [rel: string, abs: string] {
    const text = nameText(name);
    return [entryPath(this.rel, text), path.join(this.abs, text)];
  }

  childCwd(): string {
    // The child enters this very fd (fchdir, or posix_spawn's addfchdir) while it is open, whatever its path now.
    return fdDirectory(this.fd);
  }

  read(buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number> {
    return readAt(this.reader(), buffer, position);
  }

  readAll(): Promise<Uint8Array<ArrayBuffer>> {
    return readAllFd(this.reader());
  }

  childStdin(): Promise<number> {
    return Promise.resolve(this.reader());
  }

  mkdir(name: string): void {
    mkdirAt(this.fd, name);
  }

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

  link(from: string, to: string): void {
    linkAt(this.fd, from, this.fd, to);
  }

  rename(from: string, to: string): void {
    renameAt(this.fd, from, this.fd, to);
  }

  remove(name: string, directory = false): void {
    unlinkAt(this.fd, name, directory);
  }

  writeAll(bytes: Uint8Array): void {
    writeAllFd(this.fd, bytes);
  }

  sync(): Promise<void> {
    return syncFd(this.syncable());
  }

  lock(waitMs: number): Promise<void> {
    return lockFd(this.reader(), waitMs);
  }

  /** Closes the fd held; a second call does nothing (it could hit an fd number reused since). */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.fd >= 0) closeFd(this.fd);
  }
}
