/**
 * What running children takes on darwin where Linux has a call of its own
 * (platform.ts picks these on darwin):
 *
 * - a child's exit, watched by a kqueue per child (EVFILT_PROC/NOTE_EXIT)
 *   instead of a pidfd: the kqueue's fd becomes readable once the child has
 *   exited, so the reactor's one poll() waits on it like on a pidfd. A child
 *   that exited before the watch was registered (the kernel then reports
 *   ESRCH, or never fires) triggers the kqueue's user event instead;
 * - the reactor's wake-up, a nonblocking pipe instead of an eventfd;
 * - the controlling terminal of a PTY child: xnu's posix_spawn runs the file
 *   actions before POSIX_SPAWN_SETSID, so the slave it opens does not become
 *   the new session's terminal. The child therefore starts as `/bin/sh`,
 *   which opens the slave once more as the session leader (taking it as its
 *   controlling terminal, its process group in the foreground) and then
 *   execs the command ({@linkcode controllingTerminalArgv}).
 *
 * @example
 * ```ts
 * import { reap } from "./fd.ts";
 *
 * declare const pid: number; // a child of this process
 * const exitFd = kqueueExitFd(pid); // poll it for POLL.IN, then reap(pid) and close it
 * ```
 */
import { DARWIN, packKevents, unpackKevent } from "./darwin_abi.ts";
import { errno, libc } from "./libc.ts";
import { closeFd, hasExited, makePipe, setNonblocking } from "./fd.ts";
import { osError } from "./os_error.ts";

/** The reactor's wake-up: bytes written to `write` make `read` readable. */
export interface WakeChannel {
  read: number;
  write: number;
}

const { KQUEUE } = DARWIN;
/** A struct timespec of zero: kevent registers the changes and returns without waiting. */
const NO_WAIT = new Uint8Array(16);
/** The user event that marks a child found already exited. */
const EXITED_EVENT = 0;

/**
 * A close-on-exec kqueue that becomes readable once the child `pid` has exited (it stays readable until
 * closed). Throws an OS error (os_error.ts) when the kernel refuses the watch.
 */
export function kqueueExitFd(pid: number): number {
  const c = libc();
  const kq = c.kqueue();
  if (kq < 0) throw osError("kqueue", errno());
  try {
    if (c.fcntl(kq, DARWIN.F.SETFD, DARWIN.FD_CLOEXEC) !== 0) throw osError("fcntl(kqueue)", errno());
    const changes = packKevents([
      { ident: EXITED_EVENT, filter: KQUEUE.EVFILT_USER, flags: KQUEUE.EV_ADD | KQUEUE.EV_RECEIPT, fflags: 0 },
      { ident: pid, filter: KQUEUE.EVFILT_PROC, flags: KQUEUE.EV_ADD | KQUEUE.EV_RECEIPT, fflags: KQUEUE.NOTE_EXIT },
    ]);
    const receipts = new Uint8Array(changes.length);
    const count = c.kevent(kq, changes, 2, receipts, 2, NO_WAIT);
    if (count < 0) throw osError(`kevent(${pid})`, errno());
    let watchError = 0;
    for (let index = 0; index < count; index++) {
      const receipt = unpackKevent(receipts, index);
      if ((receipt.flags & KQUEUE.EV_ERROR) === 0 || receipt.data === 0) continue;
      if (receipt.filter !== KQUEUE.EVFILT_PROC || receipt.data !== DARWIN.ERRNO.ESRCH) {
        throw osError(`kevent(${pid})`, receipt.data);
      }
      watchError = receipt.data;
    }
    // Registered after the exit: no edge will come. The zombie is still ours to reap, so waitid sees it.
    if (watchError !== 0 || hasExited(pid)) triggerExited(kq);
    return kq;
  } catch (error) {
    closeFd(kq);
    throw error;
  }
}

function triggerExited(kq: number): void {
  const trigger = packKevents([
    { ident: EXITED_EVENT, filter: KQUEUE.EVFILT_USER, flags: 0, fflags: KQUEUE.NOTE_TRIGGER },
  ]);
  if (libc().kevent(kq, trigger, 1, new Uint8Array(0), 0, NO_WAIT) < 0) throw osError("kevent(trigger)", errno());
}

/** The reactor's wake-up on darwin: a close-on-exec pipe, nonblocking at both ends (a full pipe is awake already). */
export function pipeWakeChannel(): WakeChannel {
  const [read, write] = makePipe();
  setNonblocking(read);
  setNonblocking(write);
  return { read, write };
}

/** The shell that takes the terminal: `: <tty` opens it as the session leader, then `exec` runs the command. */
const TAKE_TERMINAL = ': <"$0" && exec "$@"';

/**
 * The argv that starts `program` (its `argv` as given, argv[0] then being `program`) with `slave` as its
 * controlling terminal, in a new session whose slave the file actions opened before setsid.
 *
 * @example
 * ```ts
 * controllingTerminalArgv("/dev/ttys004", "/usr/bin/vi", ["vi", "notes.txt"]);
 * // ["/bin/sh", "-c", ': <"$0" && exec "$@"', "/dev/ttys004", "/usr/bin/vi", "notes.txt"]
 * ```
 */
export function controllingTerminalArgv(slave: string, program: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", TAKE_TERMINAL, slave, program, ...argv.slice(1)];
}
