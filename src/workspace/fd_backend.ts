/** The Linux backend: each handle's fd is opened beneath the root's with O_NOFOLLOW; no path is looked up again. */
import * as path from "node:path";
import { openAt, openBeneath, openDirectory, reopenFd } from "../os/fs_at.ts";
import { readDirFd } from "../os/fs_dir.ts";
import { statAt, statFd } from "../os/fs_stat.ts";
import { syncFs } from "../os/fs_change.ts";
import type { Name } from "../os/fs_call.ts";
import { closeFd } from "../os/fd.ts";
import { O } from "../os/libc.ts";
import { resolutionError } from "./confine.ts";
import { Handle, READ_FLAGS, statOrClose } from "./fd_handle.ts";
import { type FileBackend, type FileStat, notAFile, type RawDirEntry, type Reach, sameObject } from "./handle.ts";

type Access = "path" | "read";

/** Opens the directory `name` of `dirFd` readable, or (searchable but not readable) by O_PATH only. */
function openDirAt(dirFd: number, name: Name): { fd: number; access: Access } {
  try {
    return { fd: openAt(dirFd, name, O.RDONLY | O.DIRECTORY), access: "read" };
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
    return { fd: openAt(dirFd, name, O.PATH | O.DIRECTORY), access: "path" };
  }
}

class LinuxFdHandle extends Handle {
  readonly #access: Access;
  /** A readable fd reopened from an O_PATH one, when needed. */
  #readable: number | null = null;

  constructor(root: number | null, fd: number, access: Access, rel: string, abs: string) {
    super(root, fd, rel, abs, statOrClose(fd, statFd));
    this.#access = access;
  }

  protected adopt(fd: number, rel: string, abs: string): Handle {
    return new LinuxFdHandle(this.root, fd, "read", rel, abs);
  }

  restat(): FileStat {
    return statFd(this.fd);
  }

  entries(): RawDirEntry[] {
    return readDirFd(this.#access === "read" ? this.fd : this.#reopened(O.RDONLY | O.DIRECTORY));
  }

  statEntry(name: Name): FileStat {
    return statAt(this.fd, name);
  }

  openEntry(name: Name, expect: Reach): Handle {
    const [rel, abs] = this.entryPaths(name);
    if (expect === "any") return new LinuxFdHandle(this.root, openAt(this.fd, name, O.PATH), "path", rel, abs);
    const { fd, access } = openDirAt(this.fd, name);
    return new LinuxFdHandle(this.root, fd, access, rel, abs);
  }

  openBeneath(rel: string, expect: Reach): Handle {
    const fd = openBeneath(this.fd, rel, expect === "dir" ? O.PATH | O.DIRECTORY : O.PATH);
    const joined = path.posix.join(this.rel, rel);
    return new LinuxFdHandle(this.root, fd, "path", joined, path.join(this.abs, rel));
  }

  isCurrent(): boolean {
    let fd = -1;
    try {
      fd = openBeneath(this.root, this.rel, O.PATH);
      return sameObject(statFd(fd), this.stat);
    } catch {
      return false;
    } finally {
      if (fd >= 0) closeFd(fd);
    }
  }

  readonly syncsFileSystem = true;

  syncFileSystem(): Promise<void> {
    return syncFs(this.syncable());
  }

  override [Symbol.dispose](): void {
    if (this.#readable !== null) closeFd(this.#readable);
    this.#readable = null;
    super[Symbol.dispose]();
  }

  /** The fd to read the regular file through, reopened once from the O_PATH fd (the very inode stat'ed). */
  protected reader(): number {
    if (this.stat.kind !== "file") throw notAFile(this.rel, this.stat.kind);
    if (this.#access === "read") return this.fd;
    try {
      return this.#reopened(READ_FLAGS);
    } catch (error) {
      throw resolutionError(this.rel, error);
    }
  }

  /** An fd fsync and syncfs accept (not O_PATH: the kernel refuses those with EBADF). */
  protected syncable(): number {
    if (this.#access !== "path") return this.fd;
    return this.stat.kind === "dir" ? this.#reopened(O.RDONLY | O.DIRECTORY) : this.reader();
  }

  #reopened(flags: number): number {
    return this.#readable ??= reopenFd(this.fd, flags);
  }
}

/** The fd-pinned backend (Linux: openat with O_NOFOLLOW, statx, getdents64, /proc/self/fd). */
export const FD_BACKEND: FileBackend = {
  name: "fd",
  pinRoot(abs: string): Handle {
    // Symlinks followed: `abs` is the real path, resolved once at start.
    return new LinuxFdHandle(null, openDirectory(abs), "path", ".", abs);
  },
};
