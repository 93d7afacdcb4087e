/**
 * File-system calls that open and read relative to open directory fds
 * (openat, pread), through FFI; what an fd or entry is, is
 * src/os/fs_stat.ts, a directory's entries src/os/fs_dir.ts, and the calls
 * that change something src/os/fs_change.ts. Paths are opened one component at a time with
 * O_NOFOLLOW from a directory fd, so a symlink swapped in anywhere on the way
 * is refused by the kernel instead of followed: what these calls reach is
 * decided by the fds they start from, never by a path checked earlier.
 *
 * Failures throw the Deno error class of their errno (NotFound, AlreadyExists,
 * FilesystemLoop, ...) with the C library's message, so callers handle them
 * like errors of Deno's own file APIs.
 *
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 * import { closeFd } from "./fd.ts";
 *
 * const rootFd = openDirectory("/repo");
 * const fd = openBeneath(rootFd, "src/main.ts", O.RDONLY);
 * try {
 *   await readAllFd(fd);
 * } finally {
 *   closeFd(fd);
 * }
 * ```
 */
import { cString, ERRNO, errno, HOST_OS, libc, O } from "./libc.ts";
import { closeFd } from "./fd.ts";
import { osError } from "./os_error.ts";
import { beneathParts, cComponent, check, type Name, show } from "./fs_call.ts";
import { joinBytes } from "../text/join_bytes.ts";
import { statFd } from "./fs_stat.ts";

/** Flags every open gets: never follow a final symlink, never leak into children. */
const ALWAYS = O.NOFOLLOW | O.CLOEXEC;
/** Unused room readAllFd leaves at the end of the buffer it returns instead of copying the content out. */
const READ_SPARE_BYTES = 4096;
/** Read size of readKernelFile (most /proc files fit one). */
const KERNEL_FILE_CHUNK_BYTES = 16 * 1024;

/** How {@linkcode openDirectory} and {@linkcode openBeneath} open directories. */
export interface DirectoryAccess {
  /**
   * Open the directories readable (O_RDONLY), as systems without O_PATH need to list and walk them, instead of
   * by O_PATH, which needs no read permission and is Linux's.
   */
  readable?: boolean;
}

/** Flags of a directory opened to walk from or list. */
function directoryFlags(access: DirectoryAccess): number {
  return (access.readable ? O.RDONLY : O.PATH) | O.DIRECTORY;
}

/**
 * Opens the directory at the absolute path `abs` (symlinks followed: it is resolved once, at start) as an
 * O_PATH fd to walk from, or readable.
 *
 * @example
 * ```ts
 * const rootFd = openDirectory("/repo");
 * ```
 */
export function openDirectory(abs: string, access: DirectoryAccess = {}): number {
  return check(libc().open(cString(abs), directoryFlags(access) | O.CLOEXEC, 0), `open ${JSON.stringify(abs)}`);
}

/**
 * The text of a kernel file such as /proc/meminfo or /proc/sys/kernel/cap_last_cap, read through libc:
 * Deno's read grant covers /proc and /sys only under --allow-all, which the server never has. Throws the
 * errno's Deno error when it cannot be opened or read.
 *
 * @example
 * ```ts
 * readKernelFile("/proc/sys/kernel/cap_last_cap").trim(); // e.g. "40"
 * ```
 */
export function readKernelFile(abs: string): string {
  const fd = check(libc().open(cString(abs), O.RDONLY | O.CLOEXEC, 0), `open ${JSON.stringify(abs)}`);
  try {
    const chunks: Uint8Array[] = [];
    for (;;) {
      // The size these files report is 0 (or a page): read until the end.
      const chunk = new Uint8Array(KERNEL_FILE_CHUNK_BYTES);
      const n = check(libc().read(fd, chunk, BigInt(chunk.length)), `read ${JSON.stringify(abs)}`);
      if (n === 0) return new TextDecoder().decode(joinBytes(chunks));
      chunks.push(chunk.subarray(0, n));
    }
  } finally {
    closeFd(fd);
  }
}

/**
 * Opens the single name `name` in `dirFd` with `flags` (plus O_NOFOLLOW and O_CLOEXEC).
 *
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 *
 * declare const dirFd: number;
 * const fd = openAt(dirFd, ".workcell-1.tmp", O.WRONLY | O.CREAT | O.EXCL, 0o644);
 * ```
 */
export function openAt(dirFd: number, name: Name, flags: number, mode = 0): number {
  const bytes = cComponent(name);
  for (;;) {
    const fd = libc().openat(dirFd, bytes, flags | ALWAYS, mode);
    if (fd >= 0) return fd;
    const code = errno();
    if (code !== ERRNO.EINTR) throw osError(`openat ${show(name)}`, code);
  }
}

/**
 * Opens `relative` beneath the directory `dirFd`, walking one component at a
 * time with O_NOFOLLOW: a symlink anywhere on the way (the last component
 * included) fails with FilesystemLoop or NotADirectory, and `..` is refused,
 * so the result is always inside `dirFd`'s tree. `relative` is "." for
 * `dirFd` itself.
 *
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 *
 * const rootFd = openDirectory("/repo");
 * const dir = openBeneath(rootFd, "src/lib", O.RDONLY | O.DIRECTORY);
 * ```
 */
export function openBeneath(
  dirFd: number,
  relative: string,
  flags: number,
  mode = 0,
  access: DirectoryAccess = {},
): number {
  const parts = beneathParts(relative);
  if (parts.length === 0) return openAt(dirFd, ".", flags, mode);
  let current = dirFd;
  try {
    for (const part of parts.slice(0, -1)) {
      const next = openAt(current, part, directoryFlags(access));
      if (current !== dirFd) closeFd(current);
      current = next;
    }
    return openAt(current, parts[parts.length - 1], flags, mode);
  } finally {
    if (current !== dirFd) closeFd(current);
  }
}

/**
 * The magic link that names the object open as `fd` in the process that resolves it (`/proc/self/fd/N`, Linux):
 * a child's program before exec, or a reopen.
 *
 * @example
 * ```ts
 * const programFd = openDirectory("/repo"); // any fd
 * fdPath(programFd); // "/proc/self/fd/N"
 * ```
 */
export function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** How a working directory names an fd of this process: Linux's magic link, darwin's fd file system. */
const FD_DIRECTORY_PREFIX = HOST_OS === "darwin" ? "/dev/fd/" : "/proc/self/fd/";

/**
 * The working directory to give a child so that it runs in the directory open as `fd`: spawn.ts changes into
 * the fd itself (posix_spawn's addfchdir, nothing resolved by path), while the fd is still open. On Linux it is
 * also the path the kernel resolves to that directory (`/proc/self/fd/N`); on darwin (`/dev/fd/N`) only the
 * spawner understands it.
 *
 * @example
 * ```ts
 * const dirFd = openDirectory("/repo", { readable: true });
 * fdOfDirectory(fdDirectory(dirFd)) === dirFd; // true
 * ```
 */
export function fdDirectory(fd: number): string {
  return `${FD_DIRECTORY_PREFIX}${fd}`;
}

/**
 * The fd a working directory made by {@linkcode fdDirectory} names, or null for any other path.
 *
 * @example
 * ```ts
 * fdOfDirectory("/tmp"); // null
 * ```
 */
export function fdOfDirectory(cwd: string): number | null {
  if (!cwd.startsWith(FD_DIRECTORY_PREFIX)) return null;
  const rest = cwd.slice(FD_DIRECTORY_PREFIX.length);
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/**
 * Opens the very file an O_PATH fd refers to with real access `flags`, through its /proc/self/fd magic link
 * (nothing is looked up by name again, so nothing can be swapped in).
 *
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 *
 * const pathFd = openBeneath(openDirectory("/repo"), "src/main.ts", O.PATH);
 * const readable = reopenFd(pathFd, O.RDONLY);
 * ```
 */
export function reopenFd(fd: number, flags: number): number {
  return check(libc().open(cString(fdPath(fd)), flags | O.CLOEXEC, 0), "reopen");
}

/**
 * Reads up to `buffer.length` bytes at `position` (pread, on Deno's blocking pool so a slow disk never
 * stalls the event loop); 0 at the end of the file.
 */
export async function readAt(fd: number, buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number> {
  const n = Number(await libc().pread(fd, buffer, BigInt(buffer.length), BigInt(position)));
  // The errno of a call on the blocking pool is another thread's: only the failure itself is known.
  if (n < 0) throw new Deno.errors.InvalidData("read failed (an I/O error)");
  return n;
}

/**
 * The whole content of the regular file open as `fd`, read from position 0. The result may be a view of a
 * buffer up to READ_SPARE_BYTES (4 KiB) longer: use its byteOffset and length with `.buffer`.
 *
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 *
 * const fd = openBeneath(openDirectory("/repo"), "README.md", O.RDONLY);
 * const bytes = await readAllFd(fd);
 * ```
 */
export async function readAllFd(fd: number): Promise<Uint8Array<ArrayBuffer>> {
  // One byte beyond the size: the read that finds the end then has room, so a file that did not grow is read
  // into this one buffer, neither regrown nor copied (a 50 MB file would otherwise be copied twice).
  let bytes = new Uint8Array(Math.max(statFd(fd).size + 1, 4096));
  let length = 0;
  for (;;) {
    if (length === bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    const n = await readAt(fd, bytes.subarray(length), length);
    if (n > 0) {
      length += n;
      continue;
    }
    // Little spare room is kept rather than copied; a buffer that had to grow is trimmed.
    return bytes.length - length <= READ_SPARE_BYTES ? bytes.subarray(0, length) : bytes.slice(0, length);
  }
}
