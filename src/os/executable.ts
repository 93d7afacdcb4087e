/**
 * `deno compile`'s embedded files cannot be executed, and the server writes only beneath the workspace, where no
 * executable may go: so a sealed memfd run as `/proc/self/fd/N`, else (vm.memfd_noexec) a private 0700 cache dir.
 */
import * as path from "node:path";
import { cString, ERRNO, errno, F, libc, O } from "./libc.ts";
import { fdPath } from "./fs_at.ts";
import { writeAllFd } from "./fs_change.ts";
import { rewindFd } from "./fd.ts";

/** `path` to execute: `/proc/self/fd/N` for the memfd `fd`, else the cached file (`fd` null). */
export interface MaterializedExecutable {
  path: string;
  fd: number | null;
  via: "memfd" | "cache-dir";
}

const MFD_CLOEXEC = 0x1;
const MFD_ALLOW_SEALING = 0x2;
const MFD_EXEC = 0x10;
/** F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE. */
const ALL_SEALS = 0x1 | 0x2 | 0x4 | 0x8;
const CACHE_DIR_MODE = 0o700;
const PARENT_DIR_MODE = 0o755;
const EXECUTABLE_MODE = 0o700;

/** A rewound close-on-exec memfd holding `bytes`, plus `flags` (MFD_EXEC retried without: before 6.3 all can exec). */
export function memfdWith(name: string, bytes: Uint8Array<ArrayBuffer>, flags = 0): number {
  const c = libc();
  const label = cString(name);
  let fd = c.memfd_create(label, MFD_CLOEXEC | flags);
  if (fd < 0 && errno() === ERRNO.EINVAL && (flags & MFD_EXEC) !== 0) {
    fd = c.memfd_create(label, MFD_CLOEXEC | (flags & ~MFD_EXEC));
  }
  if (fd < 0) throw new Error(`memfd_create failed (errno ${errno()})`);
  try {
    writeAllFd(fd, bytes);
    rewindFd(fd);
    return fd;
  } catch (error) {
    c.close(fd);
    throw error;
  }
}

/** `bytes` in a sealed, close-on-exec, executable memfd kept open for the process's life; throws where forbidden. */
export function memfdExecutable(name: string, bytes: Uint8Array<ArrayBuffer>): number {
  const fd = memfdWith(name, bytes, MFD_ALLOW_SEALING | MFD_EXEC);
  if (libc().fcntl(fd, F.ADD_SEALS, ALL_SEALS) < 0) {
    const code = errno();
    libc().close(fd);
    throw new Error(`sealing failed (errno ${code})`);
  }
  return fd;
}

/** The per-user cache directory for the fallback, or null when the environment names none. */
export function defaultCacheDir(env: { get(name: string): string | undefined } = Deno.env): string | null {
  const xdg = env.get("XDG_CACHE_HOME");
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "workcell");
  const home = env.get("HOME");
  if (!home) return null;
  return path.join(home, ".cache", "workcell");
}

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function privateDirectory(dir: string, uid: number): Promise<boolean> {
  try {
    const info = await Deno.lstat(dir);
    return info.isDirectory && info.uid === uid && ((info.mode ?? 0) & 0o777) === CACHE_DIR_MODE;
  } catch {
    return false;
  }
}

/** Writes `<dir>/<name>-<sha256>` (0700, private dir) unless identical, via libc: Deno may write only the workspace. */
export async function cachedExecutable(dir: string, name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = await sha256Hex(bytes);
  const target = path.join(dir, `${name}-${hash}`);
  const c = libc();
  const uid = c.getuid();
  // mkdir -p through libc; failures show up in the privateDirectory check below.
  const parents: string[] = [];
  for (let parent = path.dirname(dir); parent !== path.dirname(parent); parent = path.dirname(parent)) {
    parents.unshift(parent);
  }
  for (const parent of parents) c.mkdir(cString(parent), PARENT_DIR_MODE);
  c.mkdir(cString(dir), CACHE_DIR_MODE);
  if (!(await privateDirectory(dir, uid))) {
    throw new Error(`${dir} is not a private (0700, owned by uid ${uid}) directory`);
  }
  const existing = await Deno.readFile(target).catch(() => null);
  if (existing && (await sha256Hex(existing)) === hash) return target;
  const temp = `${target}.${crypto.randomUUID()}.tmp`;
  const fd = c.open(cString(temp), O.WRONLY | O.CREAT | O.EXCL | O.NOFOLLOW | O.CLOEXEC, EXECUTABLE_MODE);
  if (fd < 0) throw new Error(`cannot create ${temp} (errno ${errno()})`);
  try {
    writeAllFd(fd, bytes);
    if (c.fsync_now(fd) < 0) throw new Error(`fsync of ${temp} failed (errno ${errno()})`);
  } finally {
    c.close(fd);
  }
  if (c.rename(cString(temp), cString(target)) < 0) throw new Error(`cannot rename ${temp} to ${target}`);
  return target;
}

/** Makes `bytes` executable: a memfd where possible, else the private cache directory. */
export async function materializeExecutable(
  name: string,
  bytes: Uint8Array<ArrayBuffer>,
  cacheDir: string | null = defaultCacheDir(),
): Promise<MaterializedExecutable> {
  let memfdError: unknown;
  try {
    const fd = memfdExecutable(name, bytes);
    return { path: fdPath(fd), fd, via: "memfd" };
  } catch (error) {
    memfdError = error;
  }
  if (cacheDir === null) {
    throw new Error(`cannot make ${name} executable: ${memfdError}, and no HOME for a cache directory`);
  }
  return { path: await cachedExecutable(cacheDir, name, bytes), fd: null, via: "cache-dir" };
}
