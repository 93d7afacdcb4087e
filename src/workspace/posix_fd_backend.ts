/**
 * The POSIX fd backend (macOS's; on Linux for tests): like fd_backend.ts but without O_PATH and /proc/self/fd, so
 * directories open readable (searchable-only ones cannot be walked), a file opens O_NONBLOCK once lstat says it is one
 * (its fd's stat must match), symlinks and special files are held by stat, never opened; a patch fsyncs each file.
 */
import * as path from "node:path";
import { openAt, openBeneath, openDirectory } from "../os/fs_at.ts";
import { readDirPosix } from "../os/fs_dir.ts";
import { statAtPosix, statFdPosix } from "../os/fs_stat.ts";
import { beneathParts, type Name } from "../os/fs_call.ts";
import { closeFd } from "../os/fd.ts";
import { O } from "../os/libc.ts";
import { PathChanged, resolutionError } from "./confine.ts";
import { Handle, READ_FLAGS, statOrClose } from "./fd_handle.ts";
import { type FileBackend, type FileStat, notAFile, type RawDirEntry, type Reach, sameObject } from "./handle.ts";

const DIRECTORY_FLAGS = O.RDONLY | O.DIRECTORY;
const READABLE = { readable: true };

/** `act` on the directory holding the last of `parts`, walked from `root`, and that name ("." for no parts). */
function inParent<T>(root: number, parts: readonly string[], act: (dirFd: number, name: string) => T): T {
  if (parts.length <= 1) return act(root, parts[0] ?? ".");
  const fd = openBeneath(root, parts.slice(0, -1).join("/"), DIRECTORY_FLAGS, 0, READABLE);
  try {
    return act(fd, parts[parts.length - 1]);
  } finally {
    closeFd(fd);
  }
}

/** An object held by a readable fd, or (a symlink, a special file, an unreadable file) by its stat alone. */
class PosixFdHandle extends Handle {
  constructor(root: number | null, fd: number, rel: string, abs: string, stat?: FileStat) {
    super(root, fd, rel, abs, stat ?? statOrClose(fd, statFdPosix));
  }

  protected adopt(fd: number, rel: string, abs: string): Handle {
    return new PosixFdHandle(this.root, fd, rel, abs);
  }

  restat(): FileStat {
    if (this.fd >= 0) return statFdPosix(this.fd);
    const now = this.#lookAgain();
    if (!sameObject(now, this.stat)) throw new PathChanged(this.rel);
    return now;
  }

  entries(): RawDirEntry[] {
    return readDirPosix(this.fd);
  }

  statEntry(name: Name): FileStat {
    return statAtPosix(this.fd, name);
  }

  openEntry(name: Name, expect: Reach): Handle {
    return this.#openIn(this.fd, name, expect, ...this.entryPaths(name));
  }

  openBeneath(rel: string, expect: Reach): Handle {
    const parts = beneathParts(rel);
    const joined = path.posix.join(this.rel, ...parts);
    const abs = path.join(this.abs, ...parts);
    return inParent(this.fd, parts, (dirFd, name) => this.#openIn(dirFd, name, expect, joined, abs));
  }

  isCurrent(): boolean {
    try {
      return sameObject(this.#lookAgain(), this.stat);
    } catch {
      return false;
    }
  }

  readonly syncsFileSystem = false;

  syncFileSystem(): Promise<void> {
    return Promise.reject(new Deno.errors.NotSupported("no call flushes a whole file system here: fsync each file"));
  }

  protected reader(): number {
    if (this.stat.kind !== "file") throw notAFile(this.rel, this.stat.kind);
    if (this.fd < 0) {
      throw resolutionError(this.rel, new Deno.errors.PermissionDenied(`${this.rel} cannot be opened for reading`));
    }
    return this.fd;
  }

  protected syncable(): number {
    // A handle without an fd holds a symlink, a special file or an unreadable file: say which, not EBADF.
    return this.stat.kind === "dir" ? this.fd : this.reader();
  }

  /** What the path from the root leads to now, a final symlink not followed. */
  #lookAgain(): FileStat {
    const parts = beneathParts(this.rel);
    if (parts.length === 0) return statFdPosix(this.root);
    return inParent(this.root, parts, statAtPosix);
  }

  /** Opens the entry `name` of `dirFd`: as a directory, or as whatever lstat finds there (checked to be it). */
  #openIn(dirFd: number, name: Name, expect: Reach, rel: string, abs: string): Handle {
    if (expect === "dir") return new PosixFdHandle(this.root, openAt(dirFd, name, DIRECTORY_FLAGS), rel, abs);
    const seen = statAtPosix(dirFd, name);
    const fd = seen.kind === "dir" ? openAt(dirFd, name, DIRECTORY_FLAGS) : openFileOrNone(dirFd, name, seen);
    if (fd < 0) return new PosixFdHandle(this.root, -1, rel, abs, seen);
    const handle = new PosixFdHandle(this.root, fd, rel, abs);
    if (sameObject(handle.stat, seen)) return handle;
    // Another object came to the name between the look and the open.
    handle[Symbol.dispose]();
    throw new PathChanged(rel);
  }
}

/** A readable fd on the regular file `name`, or -1 for anything else or a file the server may not read. */
function openFileOrNone(dirFd: number, name: Name, seen: FileStat): number {
  if (seen.kind !== "file") return -1;
  try {
    return openAt(dirFd, name, READ_FLAGS);
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return -1;
    throw error;
  }
}

/** The POSIX fd backend (openat with O_NOFOLLOW, fstat, fstatat, readdir): macOS's, and selectable on Linux. */
export const POSIX_FD_BACKEND: FileBackend = {
  name: "posix-fd",
  pinRoot(abs: string): Handle {
    const root = new PosixFdHandle(null, openDirectory(abs, READABLE), ".", abs);
    assertLayout(root, abs);
    return root;
  },
};

/** Throws unless the C `struct stat` agrees with Deno's: a wrong layout (src/os/fs_stat.ts) breaks identity checks. */
function assertLayout(root: Handle, abs: string): void {
  const deno = Deno.statSync(abs);
  if (root.stat.kind === "dir" && root.stat.ino === deno.ino && root.stat.dev === deno.dev) return;
  root[Symbol.dispose]();
  throw new Error(
    `fstat of ${abs} disagrees with Deno's stat (ino ${root.stat.ino} vs ${deno.ino}, dev ${root.stat.dev} vs ` +
      `${deno.dev}): the struct stat layout of src/os/fs_stat.ts is wrong for this system`,
  );
}
