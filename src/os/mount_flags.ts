import { cString, libc } from "./libc.ts";

/** statvfs f_flag bits (sys/statvfs.h) and the mount(2) flags they stand for. */
const ST_TO_MS: readonly [number, number][] = [
  [2, 0x2], // ST_NOSUID → MS_NOSUID
  [4, 0x4], // ST_NODEV → MS_NODEV
  [8, 0x8], // ST_NOEXEC → MS_NOEXEC
  [1024, 0x400], // ST_NOATIME → MS_NOATIME
  [2048, 0x800], // ST_NODIRATIME → MS_NODIRATIME
  [4096, 1 << 21], // ST_RELATIME → MS_RELATIME
];
const ST_NOATIME = 1024;
const ST_RELATIME = 4096;
const MS_STRICTATIME = 1 << 24;
/** sizeof(struct statvfs) on 64-bit glibc, and the offset of f_flag. */
const STATVFS_BYTES = 112;
const F_FLAG_OFFSET = 72;

/** The locked MS_* flags of `path`'s mount (0 if unreadable): a user-namespace read-only remount must repeat them. */
export function mountFlagsOf(path: string): number {
  const buffer = new Uint8Array(STATVFS_BYTES);
  if (libc().statvfs(cString(path), buffer) !== 0) return 0;
  const flags = Number(new DataView(buffer.buffer).getBigUint64(F_FLAG_OFFSET, true));
  let ms = 0;
  for (const [st, flag] of ST_TO_MS) if ((flags & st) !== 0) ms |= flag;
  // Neither noatime nor relatime: strictatime, which a remount must name (it would default to relatime).
  if ((flags & (ST_NOATIME | ST_RELATIME)) === 0) ms |= MS_STRICTATIME;
  return ms;
}
