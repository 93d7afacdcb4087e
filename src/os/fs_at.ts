/**
 * openat and pread relative to directory fds, one component at a time with O_NOFOLLOW: a symlink swapped in on the way
 * is refused, so what a call reaches is decided by the fd it starts from, never by a path checked earlier.
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

/** How openDirectory and openBeneath open directories. */
export interface DirectoryAccess {
  /** O_RDONLY, which systems without O_PATH need to list and walk, instead of O_PATH (Linux's; needs no read right). */
  readable?: boolean;
}

function directoryFlags(access: DirectoryAccess): number {
  return (access.readable ? O.RDONLY : O.PATH) | O.DIRECTORY;
}

/**
 * Opens absolute `abs` (symlinks followed: it is resolved once, at start) as an O_PATH fd to walk from, or readable.
 * @example
 * ```ts
 * const rootFd = openDirectory("/repo");
 * ```
 */
export function openDirectory(abs: string, access: DirectoryAccess = {}): number {
  return check(libc().open(cString(abs), directoryFlags(access) | O.CLOEXEC, 0), `open ${JSON.stringify(abs)}`);
}

/**
 * A /proc or /sys file's text via libc: Deno's read grant covers them only under --allow-all, which the server lacks.
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
 * Opens the single name `name` in `dirFd` with `flags` plus O_NOFOLLOW and O_CLOEXEC.
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 * const fd = openAt(3, ".workcell-1.tmp", O.WRONLY | O.CREAT | O.EXCL, 0o644);
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
 * Opens `relative` beneath `dirFd` ("." itself) one O_NOFOLLOW component at a time: any symlink fails, as does `..`.
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 * const dir = openBeneath(openDirectory("/repo"), "src/lib", O.RDONLY | O.DIRECTORY);
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
 * The magic link naming `fd` in the process that resolves it (Linux): a child's program before exec, or a reopen.
 * @example
 * ```ts
 * fdPath(3); // "/proc/self/fd/3"
 * ```
 */
export function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** How a working directory names an fd of this process: Linux's magic link, darwin's fd file system. */
const FD_DIRECTORY_PREFIX = HOST_OS === "darwin" ? "/dev/fd/" : "/proc/self/fd/";

/**
 * A child's cwd naming directory `fd`, which spawn.ts fchdirs into; only on Linux is it a path too (`/proc/self/fd/N`).
 * @example
 * ```ts
 * fdOfDirectory(fdDirectory(3)) === 3; // true
 * ```
 */
export function fdDirectory(fd: number): string {
  return `${FD_DIRECTORY_PREFIX}${fd}`;
}

/**
 * The fd a working directory made by fdDirectory names, or null for any other path.
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
 * Opens the file an O_PATH fd refers to with `flags` through its /proc/self/fd link: no name is looked up again.
 * @example
 * ```ts
 * import { O } from "./libc.ts";
 * const readable = reopenFd(3, O.RDONLY);
 * ```
 */
export function reopenFd(fd: number, flags: number): number {
  return check(libc().open(cString(fdPath(fd)), flags | O.CLOEXEC, 0), "reopen");
}

/** pread of up to `buffer.length` bytes at `position`, on Deno's blocking pool so a slow disk never stalls the loop. */
export async function readAt(fd: number, buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number> {
  const n = Number(await libc().pread(fd, buffer, BigInt(buffer.length), BigInt(position)));
  // The errno of a call on the blocking pool is another thread's: only the failure itself is known.
  if (n < 0) throw new Deno.errors.InvalidData("read failed (an I/O error)");
  return n;
}

/**
 * The whole regular file `fd` from position 0; may view a buffer up to READ_SPARE_BYTES longer (mind byteOffset).
 * @example
 * ```ts
 * const bytes = await readAllFd(3);
 * ```
 */
export async function readAllFd(fd: number): Promise<Uint8Array<ArrayBuffer>> {
  // One byte past the size gives the EOF read room: no regrow or copy (a 50 MB file would otherwise be copied twice).
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
