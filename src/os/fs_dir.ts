/** A directory fd's entries: getdents64(2) on Linux, readdir over fdopendir on darwin (and the POSIX fd backend). */
import { errno, F, HOST_OS, libc, SYS_GETDENTS64 } from "./libc.ts";
import { check } from "./fs_call.ts";
import { closeFd, rewindFd } from "./fd.ts";
import { osError } from "./os_error.ts";
import { type FileKind, kindOfMode, statAt, statAtPosix } from "./fs_stat.ts";

/** One entry as getdents64 gives it: the raw name bytes (need not be UTF-8; never "." or "..") and the type. */
export interface RawDirEntry {
  name: Uint8Array;
  kind: FileKind;
}

/**
 * Byte offsets in `struct dirent` of d_reclen (u16: the record's length, its name's NUL included), d_type, d_name:
 * glibc's on 64-bit systems (d_ino, d_off, d_reclen, d_type, d_name) and darwin's with 64-bit inodes (d_ino,
 * d_seekoff, d_reclen, d_namlen, d_type, d_name).
 */
export const DIRENT_LAYOUTS: Readonly<Record<"linux" | "darwin", { reclen: number; type: number; name: number }>> = {
  linux: { reclen: 16, type: 18, name: 19 },
  darwin: { reclen: 16, type: 20, name: 21 },
};

/** d_type of an entry of unknown type (the same on both systems). */
const DT_UNKNOWN = 0;

const DIRENT_LAYOUT = DIRENT_LAYOUTS[HOST_OS];

const DIRENT_BUFFER_BYTES = 64 * 1024;

/** The kind a d_type names (the mode's type bits, shifted: glibc's DTTOIF); null for DT_UNKNOWN (stat the entry). */
export function kindOfDirentType(type: number): FileKind | null {
  return type === DT_UNKNOWN ? null : kindOfMode(type << 12);
}

/** The errno cell of this thread, writable: readdir's end and its failure differ only by errno. */
function errnoCell(): Int32Array {
  const pointer = libc().__errno_location();
  if (pointer === null) throw new Error("no errno cell");
  return new Int32Array(Deno.UnsafePointerView.getArrayBuffer(pointer, 4));
}

/** Adds the entry in dirent `record` to `entries` unless "." or ".."; `kindOf` stats it when d_type is unknown. */
function addEntry(entries: RawDirEntry[], record: Uint8Array, kindOf: (name: Uint8Array) => FileKind): void {
  const name = record.slice(DIRENT_LAYOUT.name, record.indexOf(0, DIRENT_LAYOUT.name));
  // "." and "..": no entry's name is empty, and only these two are all dots and at most two long.
  if (name.length <= 2 && name.every((byte) => byte === 0x2e)) return;
  entries.push({ name, kind: kindOfDirentType(record[DIRENT_LAYOUT.type]) ?? kindOf(name) });
}

/**
 * Every entry of readable `fd`, via fdopendir on a dup (closedir closes it) rewound first: they share the offset.
 * @example
 * ```ts
 * readDirPosix(3);
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
      const length = new Deno.UnsafePointerView(entry).getUint16(DIRENT_LAYOUT.reclen);
      const record = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(entry, length));
      addEntry(entries, record, (name) => statAtPosix(fd, name).kind);
    }
  } finally {
    c.closedir(stream);
  }
}

/**
 * Every entry of the directory open as `fd` (O_RDONLY | O_DIRECTORY), in directory order.
 * @example
 * ```ts
 * readDirFd(3).map((entry) => entry.kind);
 * ```
 */
export function readDirFd(fd: number): RawDirEntry[] {
  if (HOST_OS === "darwin") return readDirPosix(fd);
  // From the start: an earlier listing through this fd left its offset at the end.
  rewindFd(fd);
  const buffer = new Uint8Array(DIRENT_BUFFER_BYTES);
  const view = new DataView(buffer.buffer);
  const entries: RawDirEntry[] = [];
  for (;;) {
    const n = check(libc().getdents64(BigInt(SYS_GETDENTS64), fd, buffer, BigInt(buffer.length)), "getdents64");
    if (n === 0) return entries;
    // struct linux_dirent64 is glibc's struct dirent (DIRENT_LAYOUTS.linux).
    for (let at = 0; at < n;) {
      const length = view.getUint16(at + DIRENT_LAYOUT.reclen, true);
      addEntry(entries, buffer.subarray(at, at + length), (name) => statAt(fd, name).kind);
      at += length;
    }
  }
}
