/**
 * The POSIX calls that stand in for Linux's statx(2) and getdents64(2) where
 * those do not exist (darwin): fstat and fstatat with the `struct stat` of
 * each system, and readdir over fdopendir with its `struct dirent`. The
 * layouts are tables per system and architecture, each from its header; the
 * calls are the same everywhere, so the POSIX fd backend
 * (src/workspace/posix_fd_backend.ts) runs them on Linux too, where the test
 * suite's third run exercises them.
 *
 * @example
 * ```ts
 * import { openDirectory } from "./fs_at.ts";
 *
 * const dirFd = openDirectory("/repo", { readable: true });
 * statFdPosix(dirFd).kind; // "dir"
 * readDirPosix(dirFd).length;
 * ```
 */
import { AT, errno, F, HOST_OS, libc } from "./libc.ts";
import { cComponent, check, type Name, show } from "./fs_call.ts";
import { closeFd } from "./fd.ts";
import { osError } from "./os_error.ts";
import type { RawDirEntry } from "./fs_at.ts";
import type { FdStat, FileKind } from "./fs_stat.ts";

/** Where a field of a struct lies: its byte offset and width. */
interface Field {
  at: number;
  bytes: 2 | 4 | 8;
}

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

/** The fields of `struct dirent` readdir returns. */
export interface DirentLayout {
  /** Offset of d_reclen (two bytes): the record's length, its name's NUL included. */
  reclen: number;
  /** Offset of d_type (one byte). */
  type: number;
  /** Offset of d_name (NUL-terminated). */
  name: number;
}

/**
 * `struct stat` per system and architecture: glibc's x86_64 (<bits/struct_stat.h>), the generic one of arm64
 * (<asm-generic/stat.h>), and darwin's with 64-bit inodes (<sys/stat.h>, the same on x86_64 and arm64).
 */
export const STAT_LAYOUTS: Readonly<Record<"linux-x86_64" | "linux-aarch64" | "darwin", StatLayout>> = {
  "linux-x86_64": {
    bytes: 144,
    dev: { at: 0, bytes: 8 },
    ino: { at: 8, bytes: 8 },
    mode: { at: 24, bytes: 4 },
    size: { at: 48, bytes: 8 },
    mtime: 88,
  },
  "linux-aarch64": {
    bytes: 128,
    dev: { at: 0, bytes: 8 },
    ino: { at: 8, bytes: 8 },
    mode: { at: 16, bytes: 4 },
    size: { at: 48, bytes: 8 },
    mtime: 88,
  },
  darwin: {
    bytes: 144,
    dev: { at: 0, bytes: 4 },
    ino: { at: 8, bytes: 8 },
    mode: { at: 4, bytes: 2 },
    size: { at: 96, bytes: 8 },
    mtime: 48,
  },
};

/**
 * `struct dirent`: glibc's on 64-bit systems (d_ino, d_off, d_reclen, d_type, d_name) and darwin's with 64-bit
 * inodes (d_ino, d_seekoff, d_reclen, d_namlen, d_type, d_name).
 */
export const DIRENT_LAYOUTS: Readonly<Record<"linux" | "darwin", DirentLayout>> = {
  linux: { reclen: 16, type: 18, name: 19 },
  darwin: { reclen: 16, type: 20, name: 21 },
};

/** Mode bits of each file type (S_IFMT; the same on both systems). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** d_type values (the same on both systems). */
const DT_DIR = 4;
const DT_REG = 8;
const DT_LNK = 10;
const DT_UNKNOWN = 0;

const STAT_LAYOUT = STAT_LAYOUTS[
  HOST_OS === "darwin" ? "darwin" : Deno.build.arch === "aarch64" ? "linux-aarch64" : "linux-x86_64"
];
const DIRENT_LAYOUT = DIRENT_LAYOUTS[HOST_OS];

/**
 * The kind the type bits of a mode name.
 *
 * @example
 * ```ts
 * kindOfMode(0o040755); // "dir"
 * ```
 */
export function kindOfMode(mode: number): FileKind {
  const type = mode & S_IFMT;
  return type === S_IFREG ? "file" : type === S_IFDIR ? "dir" : type === S_IFLNK ? "symlink" : "other";
}

function readField(view: DataView, field: Field): number {
  if (field.bytes === 2) return view.getUint16(field.at, true);
  if (field.bytes === 4) return view.getInt32(field.at, true);
  return Number(view.getBigUint64(field.at, true));
}

/**
 * The {@linkcode FdStat} in a `struct stat` laid out as `layout` says.
 *
 * @example
 * ```ts
 * const bytes = new Uint8Array(STAT_LAYOUTS.darwin.bytes);
 * new DataView(bytes.buffer).setUint16(4, 0o100644, true);
 * parseStat(bytes, STAT_LAYOUTS.darwin).kind; // "file"
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

/** The kind a d_type names; null for DT_UNKNOWN (the entry must then be stat'ed). */
export function kindOfDirentType(type: number): FileKind | null {
  if (type === DT_UNKNOWN) return null;
  return type === DT_REG ? "file" : type === DT_DIR ? "dir" : type === DT_LNK ? "symlink" : "other";
}

/**
 * Whether a directory entry's name is "." or "..", which listings leave out.
 *
 * @example
 * ```ts
 * isDotName(new Uint8Array([0x2e, 0x2e])); // true
 * ```
 */
export function isDotName(name: Uint8Array): boolean {
  return (name.length === 1 && name[0] === 0x2e) || (name.length === 2 && name[0] === 0x2e && name[1] === 0x2e);
}

/** The errno cell of this thread, writable: readdir's end and its failure differ only by errno. */
function errnoCell(): Int32Array {
  const pointer = libc().__errno_location();
  if (pointer === null) throw new Error("no errno cell");
  return new Int32Array(Deno.UnsafePointerView.getArrayBuffer(pointer, 4));
}

/**
 * Every entry of the directory open as `fd` (readable: opened with O_RDONLY | O_DIRECTORY), in directory order,
 * through fdopendir on a duplicate of `fd` (closedir closes the duplicate, never `fd`) and readdir, from the
 * start (the duplicate shares `fd`'s offset, which an earlier listing left at the end).
 *
 * @example
 * ```ts
 * import { openDirectory } from "./fs_at.ts";
 *
 * readDirPosix(openDirectory("/repo", { readable: true })).map((entry) => entry.kind);
 * ```
 */
export function readDirPosix(fd: number): RawDirEntry[] {
  const c = libc();
  const copy = check(c.fcntl(fd, F.DUPFD_CLOEXEC, 0), "dup");
  const stream = c.fdopendir(copy);
  if (stream === null) {
    const code = errno();
    closeFd(copy);
    throw osError("fdopendir", code);
  }
  try {
    c.rewinddir(stream);
    const entries: RawDirEntry[] = [];
    const cell = errnoCell();
    for (;;) {
      cell[0] = 0;
      const entry = c.readdir(stream);
      if (entry === null) {
        if (cell[0] !== 0) throw osError("readdir", cell[0]);
        return entries;
      }
      const record = new Uint8Array(
        Deno.UnsafePointerView.getArrayBuffer(entry, new Deno.UnsafePointerView(entry).getUint16(DIRENT_LAYOUT.reclen)),
      );
      // Raw bytes: names need not be UTF-8.
      const name = record.slice(DIRENT_LAYOUT.name, record.indexOf(0, DIRENT_LAYOUT.name));
      if (isDotName(name)) continue;
      entries.push({ name, kind: kindOfDirentType(record[DIRENT_LAYOUT.type]) ?? statAtPosix(fd, name).kind });
    }
  } finally {
    c.closedir(stream);
  }
}
