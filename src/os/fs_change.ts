/** Calls that change something, relative to open fds; each name is one component acted on as given (never followed). */
import { AT, ERRNO, errno, HOST_OS, libc } from "./libc.ts";
import { DARWIN } from "./darwin_abi.ts";
import { tryUntil } from "../async/try_until.ts";
import { osError } from "./os_error.ts";
import { cComponent, check, type Name, show } from "./fs_call.ts";

/** flock(2) operations. */
const LOCK_EX = 2;
const LOCK_NB = 4;

/** Writes all of `bytes` to `fd` (synchronous, so a full disk reports ENOSPC with its own message). */
export function writeAllFd(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) {
    const chunk = bytes.subarray(written) as Uint8Array<ArrayBuffer>;
    const n = Number(libc().write(fd, chunk, BigInt(chunk.length)));
    if (n < 0) {
      const code = errno();
      if (code === ERRNO.EINTR) continue;
      throw osError("write", code);
    }
    written += n;
  }
}

/** fsync(2) on the blocking pool; on darwin F_FULLFSYNC, like Rust's sync_all: its fsync leaves data in drive cache. */
export async function syncFd(fd: number): Promise<void> {
  const c = libc();
  const result = HOST_OS === "darwin" ? await c.fcntl_wait(fd, DARWIN.F_FULLFSYNC, 0) : await c.fsync(fd);
  if (result !== 0) throw new Deno.errors.InvalidData("fsync failed (an I/O error or a full disk)");
}

/** syncfs on the blocking pool; from Linux 5.8 it fails on writeback errors since `fd` was opened (durability.ts). */
export async function syncFs(fd: number): Promise<void> {
  if ((await libc().syncfs(fd)) !== 0) throw new Deno.errors.InvalidData("syncfs failed (an I/O error or a full disk)");
}

/**
 * Takes an exclusive flock(2) on `fd`, retrying on this thread (no blocking-pool thread waits in the kernel) until
 * `waitMs` pass, then rejects with TimedOut: a lock held for ever (`flock FILE sleep infinity`) must not block us.
 * @example
 * ```ts
 * await lockFd(3, 10_000);
 * ```
 */
export function lockFd(fd: number, waitMs: number): Promise<void> {
  return tryUntil(
    () => {
      if (libc().flock_now(fd, LOCK_EX | LOCK_NB) === 0) return true;
      const code = errno();
      if (code !== ERRNO.EAGAIN && code !== ERRNO.EINTR) throw osError("flock", code);
      return false;
    },
    waitMs,
    "the lock",
  );
}

/** fchmod(2). */
export function chmodFd(fd: number, mode: number): void {
  check(libc().fchmod(fd, mode), "fchmod");
}

/** mkdirat(2): creates the directory `name` in `dirFd`. */
export function mkdirAt(dirFd: number, name: Name, mode = 0o777): void {
  check(libc().mkdirat(dirFd, cComponent(name), mode), `mkdir ${show(name)}`);
}

/** renameat(2): replaces `to` atomically; neither name is followed if it is a symlink. */
export function renameAt(fromDir: number, from: string, toDir: number, to: string): void {
  check(
    libc().renameat(fromDir, cComponent(from), toDir, cComponent(to)),
    `rename ${JSON.stringify(from)} to ${JSON.stringify(to)}`,
  );
}

/** linkat(2) without following `from`: fails with AlreadyExists when `to` exists. */
export function linkAt(fromDir: number, from: string, toDir: number, to: string): void {
  check(
    libc().linkat(fromDir, cComponent(from), toDir, cComponent(to), 0),
    `link ${JSON.stringify(from)} to ${JSON.stringify(to)}`,
  );
}

/** unlinkat(2): removes the file (or, with `directory`, the empty directory) `name` of `dirFd`. */
export function unlinkAt(dirFd: number, name: Name, directory = false): void {
  check(libc().unlinkat(dirFd, cComponent(name), directory ? AT.REMOVEDIR : 0), `remove ${show(name)}`);
}
