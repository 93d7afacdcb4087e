/** Raw fd operations for the command runner (pipes, nonblocking I/O, pidfds, eventfds, reaping), all synchronous. */
import { ERRNO, errno, F, HOST_OS, libc, O, SIGINFO, SYS, WAIT } from "./libc.ts";
import { osError } from "./os_error.ts";

/** Bytes asked for as the pipe buffer of a child's stdout/stderr (fewer wake-ups in a flood). */
const PIPE_BUFFER_BYTES = 1024 * 1024;
/** lseek(2)'s whence for an absolute offset (the same on both systems). */
const SEEK_SET = 0;

/** A pipe with O_CLOEXEC on both ends: [read end, write end]. */
export function makePipe(): [number, number] {
  const fds = new Int32Array(2);
  if (libc().pipe2(fds, O.CLOEXEC) !== 0) throw osError("pipe2", errno());
  return [fds[0], fds[1]];
}

/** Asks for a larger pipe buffer; best effort (the kernel may cap it). darwin's pipes grow by themselves. */
export function growPipe(fd: number): void {
  if (HOST_OS === "darwin") return;
  libc().fcntl(fd, F.SETPIPE_SZ, PIPE_BUFFER_BYTES);
}

/** Sets O_NONBLOCK on `fd`. */
export function setNonblocking(fd: number): void {
  const c = libc();
  const flags = c.fcntl(fd, F.GETFL, 0);
  if (flags < 0 || c.fcntl(fd, F.SETFL, flags | O.NONBLOCK) < 0) throw osError("fcntl", errno());
}

/** Moves the offset of `fd` (a file, memfd or directory) back to its start. */
export function rewindFd(fd: number): void {
  if (libc().lseek(fd, 0n, SEEK_SET) < 0n) throw osError("rewind", errno());
}

/** Closes `fd`, ignoring errors (it is never reused by us afterwards). */
export function closeFd(fd: number): void {
  libc().close(fd);
}

/** Reads into `buffer` without blocking: bytes read, "again" (nothing now), or "eof" (closed or hung up). */
export function readSome(fd: number, buffer: Uint8Array<ArrayBuffer>): number | "again" | "eof" {
  for (;;) {
    const n = Number(libc().read(fd, buffer, BigInt(buffer.length)));
    if (n > 0) return n;
    if (n === 0) return "eof";
    const code = errno();
    if (code === ERRNO.EINTR) continue;
    if (code === ERRNO.EAGAIN) return "again";
    return "eof"; // EIO from a PTY master whose slave side is gone, or any other error
  }
}

/** Writes as much of `bytes` as fits without blocking: bytes written (0 when full) or "closed" (reader gone). */
export function writeSome(fd: number, bytes: Uint8Array<ArrayBuffer>): number | "closed" {
  for (;;) {
    const n = Number(libc().write(fd, bytes, BigInt(bytes.length)));
    if (n >= 0) return n;
    const code = errno();
    if (code === ERRNO.EINTR) continue;
    if (code === ERRNO.EAGAIN) return 0;
    return "closed";
  }
}

/** A pidfd for `pid` (readable once the child has exited). */
export function pidfdOpen(pid: number): number {
  const fd = Number(libc().syscall(BigInt(SYS.pidfd_open), BigInt(pid), 0n));
  if (fd < 0) throw osError("pidfd_open", errno());
  return fd;
}

/** A nonblocking, close-on-exec eventfd. */
export function eventfdOpen(): number {
  const fd = libc().eventfd(0, O.NONBLOCK | O.CLOEXEC);
  if (fd < 0) throw osError("eventfd", errno());
  return fd;
}

/** How a child ended. */
export type ExitStatus = { code: number; signal: null } | { code: null; signal: number };

/** Reaps `pid` if it has exited; null while it still runs. */
export function reap(pid: number): ExitStatus | null {
  const status = new Int32Array(1);
  for (;;) {
    const result = libc().waitpid(pid, status, WAIT.NOHANG);
    if (result === 0) return null;
    if (result < 0) {
      if (errno() === ERRNO.EINTR) continue;
      throw osError(`waitpid(${pid})`, errno());
    }
    const raw = status[0];
    const termSignal = raw & 0x7f;
    return termSignal === 0 ? { code: (raw >> 8) & 0xff, signal: null } : { code: null, signal: termSignal };
  }
}

/** Waits for a child that was just sent SIGKILL and that nothing else watches, and reaps it (no zombie is left). */
export async function reapKilled(pid: number): Promise<void> {
  while (reap(pid) === null) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Whether `pid` has exited (a zombie waiting to be reaped), without reaping it. */
export function hasExited(pid: number): boolean {
  const info = new Uint8Array(SIGINFO.bytes);
  const result = libc().waitid(WAIT.P_PID, pid, info, WAIT.EXITED | WAIT.NOHANG | WAIT.NOWAIT);
  return result === 0 && new DataView(info.buffer).getInt32(SIGINFO.pidOffset, true) === pid;
}

/** Sends `signal` to process group `pgid`; false when no such group is left. */
export function killGroup(pgid: number, signal: number): boolean {
  return libc().kill(-pgid, signal) === 0;
}
