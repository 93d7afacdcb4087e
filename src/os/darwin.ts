/** Darwin stand-ins for Linux calls (platform.ts picks them): a kqueue per child for a pidfd, a pipe for an eventfd. */
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

/** A close-on-exec kqueue readable (until closed) once child `pid` has exited; throws an OS error if refused. */
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
 * The argv: `/bin/sh` reopens `slave` as session leader (xnu's spawn opened it before setsid), then execs `program`.
 * @example
 * ```ts
 * controllingTerminalArgv("/dev/ttys004", "/usr/bin/vi", ["vi", "notes.txt"]);
 * ```
 */
export function controllingTerminalArgv(slave: string, program: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", TAKE_TERMINAL, slave, program, ...argv.slice(1)];
}
