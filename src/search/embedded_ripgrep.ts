/**
 * Makes the ripgrep bytes embedded in a compiled binary executable. A file
 * inside `deno compile`'s embedded filesystem can be read but not executed,
 * and the binary may write only beneath the workspace, which rg must never
 * be dropped into. So:
 *
 * 1. `memfd_create("rg", MFD_CLOEXEC | MFD_EXEC)`, write the bytes,
 *    seal the file against changes, and run `/proc/self/fd/N`. Nothing
 *    touches a disk; close-on-exec keeps the fd out of every child (the
 *    kernel resolves the path before it closes the fd).
 * 2. Where `vm.memfd_noexec` forbids executable memfds: a private 0700
 *    cache directory (`$XDG_CACHE_HOME/workcell`, else `~/.cache/workcell`) holding
 *    `rg-<sha256>`, written through libc (Deno's write grant stops at the
 *    workspace) to a temporary name and renamed into place. An existing file
 *    is used only if its SHA-256 equals the embedded bytes' and the directory
 *    is a real 0700 directory owned by this user; otherwise it is rewritten.
 *
 * @example
 * const exe = await materializeRipgrep(await Deno.readFile(embeddedPath));
 * await new Deno.Command(exe.path, { args: ["--version"] }).output();
 */
import { O } from "../os/libc.ts";
import { fdPath } from "../os/fs_at.ts";
import * as path from "node:path";

/** Where the executable copy lives. */
export interface MaterializedRipgrep {
  path: string;
  /** How it was made executable: "memfd" or "cache-dir". */
  via: "memfd" | "cache-dir";
}

const MFD_CLOEXEC = 0x1;
const MFD_ALLOW_SEALING = 0x2;
const MFD_EXEC = 0x10;
const F_ADD_SEALS = 1033;
/** F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE. */
const ALL_SEALS = 0x1 | 0x2 | 0x4 | 0x8;
const EINVAL = 22;
const CACHE_DIR_MODE = 0o700;
const PARENT_DIR_MODE = 0o755;
const EXECUTABLE_MODE = 0o700;

const LIBC_SYMBOLS = {
  open: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  fsync: { parameters: ["i32"], result: "i32" },
  mkdir: { parameters: ["buffer", "u32"], result: "i32" },
  rename: { parameters: ["buffer", "buffer"], result: "i32" },
  getuid: { parameters: [], result: "u32" },
} as const;

const LINUX_SYMBOLS = {
  memfd_create: { parameters: ["buffer", "u32"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

function cString(text: string): Uint8Array {
  return new TextEncoder().encode(`${text}\0`);
}

type Libc = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"];

function openLibc(): Deno.DynamicLibrary<typeof LIBC_SYMBOLS> {
  return Deno.dlopen("libc.so.6", LIBC_SYMBOLS);
}

function writeAll(libc: Libc, fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    const chunk = bytes.subarray(offset);
    const written = Number(libc.write(fd, chunk, BigInt(chunk.length)));
    if (written <= 0) throw new Error(`write failed after ${offset} of ${bytes.length} bytes`);
    offset += written;
  }
}

/**
 * Puts `bytes` into a sealed, close-on-exec memfd and returns its
 * `/proc/self/fd/N` path (Linux only). The fd stays open for the process's
 * life: every rg run executes from it.
 */
export function memfdExecutable(name: string, bytes: Uint8Array): string {
  const libc = openLibc();
  const linux = Deno.dlopen("libc.so.6", LINUX_SYMBOLS);
  try {
    const errno = () => new Deno.UnsafePointerView(linux.symbols.__errno_location()!).getInt32();
    const label = cString(name);
    let fd = linux.symbols.memfd_create(label, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
    // Kernels before 6.3 do not know MFD_EXEC (EINVAL); their memfds are executable anyway.
    if (fd < 0 && errno() === EINVAL) fd = linux.symbols.memfd_create(label, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) throw new Error(`memfd_create failed (errno ${errno()})`);
    try {
      writeAll(libc.symbols, fd, bytes);
      if (linux.symbols.fcntl(fd, F_ADD_SEALS, ALL_SEALS) < 0) throw new Error(`sealing failed (errno ${errno()})`);
    } catch (error) {
      libc.symbols.close(fd);
      throw error;
    }
    return fdPath(fd);
  } finally {
    linux.close();
    libc.close();
  }
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

/**
 * Writes `bytes` as `<dir>/<name>-<sha256>` (mode 0700, in a 0700
 * directory) unless an identical copy is already there, and returns its path.
 * Writes go through libc, not Deno's file APIs, so Deno's write grant can
 * stay confined to the workspace.
 */
export async function cachedExecutable(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const hash = await sha256Hex(bytes);
  const target = path.join(dir, `${name}-${hash}`);
  const libc = openLibc();
  try {
    const uid = libc.symbols.getuid();
    // mkdir -p through libc; failures show up in the privateDirectory check below.
    const parents: string[] = [];
    for (let parent = path.dirname(dir); parent !== path.dirname(parent); parent = path.dirname(parent)) {
      parents.unshift(parent);
    }
    for (const parent of parents) libc.symbols.mkdir(cString(parent), PARENT_DIR_MODE);
    libc.symbols.mkdir(cString(dir), CACHE_DIR_MODE);
    if (!(await privateDirectory(dir, uid))) {
      throw new Error(`${dir} is not a private (0700, owned by uid ${uid}) directory`);
    }
    const existing = await Deno.readFile(target).catch(() => null);
    if (existing && (await sha256Hex(existing)) === hash) return target;
    const temp = `${target}.${crypto.randomUUID()}.tmp`;
    const fd = libc.symbols.open(
      cString(temp),
      O.WRONLY | O.CREAT | O.EXCL | O.NOFOLLOW | O.CLOEXEC,
      EXECUTABLE_MODE,
    );
    if (fd < 0) throw new Error(`cannot create ${temp}`);
    try {
      writeAll(libc.symbols, fd, bytes);
      if (libc.symbols.fsync(fd) < 0) throw new Error(`fsync of ${temp} failed`);
    } finally {
      libc.symbols.close(fd);
    }
    if (libc.symbols.rename(cString(temp), cString(target)) < 0) throw new Error(`cannot rename ${temp} to ${target}`);
    return target;
  } finally {
    libc.close();
  }
}

/** Makes `bytes` executable: a memfd where possible, else the private cache directory. */
export async function materializeRipgrep(
  bytes: Uint8Array,
  cacheDir: string | null = defaultCacheDir(),
): Promise<MaterializedRipgrep> {
  const name = "rg";
  let memfdError: unknown;
  try {
    return { path: memfdExecutable(name, bytes), via: "memfd" };
  } catch (error) {
    memfdError = error;
  }
  if (cacheDir === null) {
    throw new Error(`cannot run the embedded ripgrep: ${memfdError}, and no HOME for a cache directory`);
  }
  return { path: await cachedExecutable(cacheDir, name, bytes), via: "cache-dir" };
}
