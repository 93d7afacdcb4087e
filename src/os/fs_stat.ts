/**
 * What an fd, entry or path is: statx(2) on Linux; fstat/fstatat with `struct stat` tables on darwin and in the POSIX
 * fd backend. Identities (dev, ino) compare equal to Deno's own (deviceNumber).
 */
import { AT, cString, errno, HOST_OS, libc } from "./libc.ts";
import { osError } from "./os_error.ts";
import { cComponent, check, type Name, show } from "./fs_call.ts";

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

/** statx(2) mask: type, mode, mtime, ino, size. */
const STATX_BASIC = 0x7ff;
const STATX_BYTES = 256;
/** The empty name an fstat passes (AT_EMPTY_PATH). */
const EMPTY_NAME = new Uint8Array(1);

/** The one statx buffer (each call is parsed before the next): one per call was most of a listing page's cost. */
const statxBuffer = new Uint8Array(STATX_BYTES);

function statx(dirFd: number, name: Uint8Array<ArrayBuffer>, flags: number, what: () => string): FdStat {
  if (libc().statx(dirFd, name, flags, STATX_BASIC, statxBuffer) < 0) {
    const code = errno(); // before building the message, which may call into libc
    throw osError(what(), code);
  }
  return parseStatx();
}

/** statx without an error (darwin: fstatat): null when it fails (building an error costs more than the call). */
function statxOrNull(abs: string, flags: number): FdStat | null {
  if (HOST_OS === "darwin") {
    const buffer = new Uint8Array(STAT_LAYOUT.bytes);
    return libc().fstatat(AT.FDCWD, cString(abs), buffer, flags) < 0 ? null : parseStat(buffer, STAT_LAYOUT);
  }
  return libc().statx(AT.FDCWD, cString(abs), flags, STATX_BASIC, statxBuffer) < 0 ? null : parseStatx();
}

/**
 * glibc's makedev: the dev_t stat(2) and Deno's `dev` report, so identities from statx compare equal to theirs.
 * @example
 * ```ts
 * deviceNumber(8, 1); // 0x801, not 0x800001
 * ```
 */
export function deviceNumber(major: number, minor: number): number {
  return (major & 0xfff) * 0x100 + (minor & 0xff) + Math.floor(minor / 0x100) * 0x100000 +
    Math.floor(major / 0x1000) * 2 ** 32 * 0x1000;
}

const statxView = new DataView(statxBuffer.buffer);

/** A little-endian 64-bit field as a number (exact below 2^53), without a BigInt. */
function read64(view: DataView, at: number, signed: boolean): number {
  const high = signed ? view.getInt32(at + 4, true) : view.getUint32(at + 4, true);
  return high * 2 ** 32 + view.getUint32(at, true);
}

function parseStatx(): FdStat {
  const view = statxView;
  const mode = view.getUint16(28, true);
  const seconds = read64(view, 112, true);
  const nanos = view.getUint32(120, true);
  return {
    kind: kindOfMode(mode),
    mode: mode & 0o7777,
    ino: read64(view, 32, false),
    size: read64(view, 40, false),
    mtime: new Date(seconds * 1000 + Math.floor(nanos / 1e6)),
    dev: deviceNumber(view.getUint32(136, true), view.getUint32(140, true)),
  };
}

/** What `fd` is (fstat). */
export function statFd(fd: number): FdStat {
  if (HOST_OS === "darwin") return statFdPosix(fd);
  return statx(fd, EMPTY_NAME, AT.EMPTY_PATH, () => "fstat");
}

/** What absolute `abs` names, following symlinks, or null; through libc, as Deno wants --allow-all for /dev. */
export function statPath(abs: string): FdStat | null {
  return statxOrNull(abs, 0);
}

/**
 * What absolute `abs` names, not following a symlink there (lstat), or null when it cannot be stat'ed.
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
  return statx(dirFd, cComponent(name), AT.SYMLINK_NOFOLLOW, () => `lstat ${show(name)}`);
}

/** A field of `struct stat`: its offset and its size in bytes. */
type Field = readonly [at: number, bytes: 2 | 4 | 8];

/** The fields of `struct stat` workcell reads. */
export interface StatLayout {
  bytes: number;
  dev: Field;
  ino: Field;
  mode: Field;
  size: Field;
  /** struct timespec: seconds (8 bytes), then nanoseconds (8 bytes). */
  mtime: number;
}

/** `struct stat`: glibc x86_64 <bits/struct_stat.h>, arm64 <asm-generic/stat.h>, darwin 64-bit-inode <sys/stat.h>. */
export const STAT_LAYOUTS: Readonly<Record<"linux-x86_64" | "linux-aarch64" | "darwin", StatLayout>> = {
  "linux-x86_64": { bytes: 144, dev: [0, 8], ino: [8, 8], mode: [24, 4], size: [48, 8], mtime: 88 },
  "linux-aarch64": { bytes: 128, dev: [0, 8], ino: [8, 8], mode: [16, 4], size: [48, 8], mtime: 88 },
  darwin: { bytes: 144, dev: [0, 4], ino: [8, 8], mode: [4, 2], size: [96, 8], mtime: 48 },
};

/** Mode bits of each file type (S_IFMT; the same on both systems). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const STAT_LAYOUT = STAT_LAYOUTS[
  HOST_OS === "darwin" ? "darwin" : Deno.build.arch === "aarch64" ? "linux-aarch64" : "linux-x86_64"
];
/**
 * The kind the type bits of a mode name.
 * @example
 * ```ts
 * kindOfMode(0o040755); // "dir"
 * ```
 */
export function kindOfMode(mode: number): FileKind {
  const type = mode & S_IFMT;
  return type === S_IFREG ? "file" : type === S_IFDIR ? "dir" : type === S_IFLNK ? "symlink" : "other";
}

function readField(view: DataView, [at, bytes]: Field): number {
  if (bytes === 2) return view.getUint16(at, true);
  if (bytes === 4) return view.getInt32(at, true);
  return Number(view.getBigUint64(at, true));
}

/**
 * The FdStat in a `struct stat` laid out as `layout` says.
 * @example
 * ```ts
 * parseStat(new Uint8Array(STAT_LAYOUTS.darwin.bytes), STAT_LAYOUTS.darwin).kind; // "other": mode 0
 * ```
 */
export function parseStat(bytes: Uint8Array<ArrayBuffer>, layout: StatLayout): FdStat {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const mode = readField(view, layout.mode);
  const seconds = Number(view.getBigInt64(layout.mtime, true));
  const nanos = Number(view.getBigInt64(layout.mtime + 8, true));
  return {
    kind: kindOfMode(mode),
    mode: mode & 0o7777,
    ino: readField(view, layout.ino),
    size: readField(view, layout.size),
    mtime: new Date(seconds * 1000 + Math.floor(nanos / 1e6)),
    dev: readField(view, layout.dev),
  };
}

/** fstat(2): what `fd` is. */
export function statFdPosix(fd: number): FdStat {
  const buffer = new Uint8Array(STAT_LAYOUT.bytes);
  check(libc().fstat(fd, buffer), "fstat");
  return parseStat(buffer, STAT_LAYOUT);
}

/** fstatat(2) with AT_SYMLINK_NOFOLLOW: what the entry `name` of `dirFd` is, a symlink not followed. */
export function statAtPosix(dirFd: number, name: Name): FdStat {
  const buffer = new Uint8Array(STAT_LAYOUT.bytes);
  check(libc().fstatat(dirFd, cComponent(name), buffer, AT.SYMLINK_NOFOLLOW), `lstat ${show(name)}`);
  return parseStat(buffer, STAT_LAYOUT);
}
