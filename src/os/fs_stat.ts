/**
 * What an fd, a directory entry or a path is: statx(2) on Linux, and on
 * darwin, which has no statx, fstat and fstatat (src/os/fs_posix.ts) or
 * Deno's stat for a path. Identities (dev, ino) read here compare equal to
 * Deno's own (`deviceNumber`).
 *
 * @example
 * ```ts
 * import { openDirectory } from "./fs_at.ts";
 *
 * const dirFd = openDirectory("/repo");
 * statAt(dirFd, "README.md").kind; // "file"
 * lstatPath("/repo/.git")?.kind; // "dir"
 * ```
 */
import { AT, cString, HOST_OS, libc } from "./libc.ts";
import { cComponent, check, cName, type Name, show } from "./fs_call.ts";
import { kindOfMode, statAtPosix, statFdPosix } from "./fs_posix.ts";

/** What an fd or directory entry is. */
export type FileKind = "file" | "dir" | "symlink" | "other";

/** The parts of statx(2) workcell uses. */
export interface FdStat {
  kind: FileKind;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  size: number;
  mtime: Date;
  ino: number;
  dev: number;
}

/** The dirfd that makes an *at call take its path as given (relative to the cwd, or absolute). */
const AT_FDCWD = -100;
/** statx(2) mask: type, mode, mtime, ino, size. */
const STATX_BASIC = 0x7ff;
const STATX_BYTES = 256;

/** statx(2) of `name` (NUL-terminated bytes) relative to `dirFd`. */
function statx(dirFd: number, name: Uint8Array<ArrayBuffer>, flags: number, what: string): FdStat {
  const buffer = new Uint8Array(STATX_BYTES);
  check(libc().statx(dirFd, name, flags, STATX_BASIC, buffer), what);
  return parseStatx(buffer);
}

/** statx without an error: null when it fails (building an error costs more than the call, on hot paths). */
function statxOrNull(abs: string, flags: number): FdStat | null {
  if (HOST_OS === "darwin") return denoStatOrNull(abs, flags);
  const buffer = new Uint8Array(STATX_BYTES);
  return libc().statx(AT_FDCWD, cString(abs), flags, STATX_BASIC, buffer) < 0 ? null : parseStatx(buffer);
}

/**
 * The kind of what Deno describes (a `Deno.FileInfo` or a `Deno.DirEntry`).
 *
 * @example
 * ```ts
 * kindOfInfo(Deno.lstatSync("/")); // "dir"
 * ```
 */
export function kindOfInfo(info: Pick<Deno.FileInfo, "isFile" | "isDirectory" | "isSymlink">): FileKind {
  return info.isFile ? "file" : info.isDirectory ? "dir" : info.isSymlink ? "symlink" : "other";
}

/**
 * The {@linkcode FdStat} of what Deno's stat or lstat gave.
 *
 * @example
 * ```ts
 * statOfInfo(Deno.lstatSync("/")).kind; // "dir"
 * ```
 */
export function statOfInfo(info: Deno.FileInfo): FdStat {
  return {
    kind: kindOfInfo(info),
    mode: (info.mode ?? 0) & 0o7777,
    ino: info.ino ?? 0,
    size: info.size,
    mtime: info.mtime ?? new Date(0),
    dev: info.dev,
  };
}

/** darwin has no statx: Deno's stat, whose read grant covers every path (src/permissions.ts). */
function denoStatOrNull(abs: string, flags: number): FdStat | null {
  try {
    return statOfInfo(flags & AT.SYMLINK_NOFOLLOW ? Deno.lstatSync(abs) : Deno.statSync(abs));
  } catch {
    return null;
  }
}

/**
 * The dev_t glibc's makedev gives for a major and minor number: what stat(2) and Deno's `dev` report, so that
 * identities from statx and from either of those compare equal (major 8, minor 1 is 0x801, not 0x800001).
 *
 * @example
 * ```ts
 * deviceNumber(8, 1); // 0x801
 * ```
 */
export function deviceNumber(major: number, minor: number): number {
  return (major & 0xfff) * 0x100 + (minor & 0xff) + Math.floor(minor / 0x100) * 0x100000 +
    Math.floor(major / 0x1000) * 2 ** 32 * 0x1000;
}

function parseStatx(buffer: Uint8Array<ArrayBuffer>): FdStat {
  const view = new DataView(buffer.buffer);
  const mode = view.getUint16(28, true);
  const seconds = Number(view.getBigInt64(112, true));
  const nanos = view.getUint32(120, true);
  return {
    kind: kindOfMode(mode),
    mode: mode & 0o7777,
    ino: Number(view.getBigUint64(32, true)),
    size: Number(view.getBigUint64(40, true)),
    mtime: new Date(seconds * 1000 + Math.floor(nanos / 1e6)),
    dev: deviceNumber(view.getUint32(136, true), view.getUint32(140, true)),
  };
}

/** What `fd` is (fstat). */
export function statFd(fd: number): FdStat {
  if (HOST_OS === "darwin") return statFdPosix(fd);
  return statx(fd, cName(""), AT.EMPTY_PATH, "fstat");
}

/**
 * What the absolute path `abs` names, following symlinks (stat), or null when it cannot be stat'ed. Through
 * libc rather than Deno: Deno wants --allow-all for anything under /dev.
 */
export function statPath(abs: string): FdStat | null {
  return statxOrNull(abs, 0);
}

/**
 * What the absolute path `abs` names, not following a symlink there (lstat), or null when it cannot be stat'ed.
 *
 * @example
 * ```ts
 * lstatPath("/ws/.git")?.kind; // "dir", "file", "symlink" or "other"
 * ```
 */
export function lstatPath(abs: string): FdStat | null {
  return statxOrNull(abs, AT.SYMLINK_NOFOLLOW);
}

/** What the entry `name` of `dirFd` is, not following a symlink there (lstat). */
export function statAt(dirFd: number, name: Name): FdStat {
  if (HOST_OS === "darwin") return statAtPosix(dirFd, name);
  // One name: statx would follow a symlink in a longer path.
  return statx(dirFd, cComponent(name), AT.SYMLINK_NOFOLLOW, `lstat ${show(name)}`);
}
