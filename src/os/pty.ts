/** Pseudo-terminals; the master is O_CLOEXEC so it never leaks into other children. */
import { cString, errno, libc, O, TIOCSWINSZ } from "./libc.ts";
import { closeFd } from "./fd.ts";
import { osError } from "./os_error.ts";

/** The window size a PTY gets unless told otherwise. */
export const DEFAULT_WINDOW = { rows: 24, cols: 80 } as const;

const PTSNAME_BYTES = 128;

/** An open PTY pair. */
export interface Pty {
  master: number;
  /** The slave, held open by the server until the child's leader exits (so the master never hangs up early). */
  slave: number;
  /** /dev/pts/N, opened by the child as its controlling terminal. */
  slavePath: string;
}

/** Opens a PTY pair with the given window size; throws an OS error (os_error.ts) where none can be made. */
export function openPty(window: { rows: number; cols: number } = DEFAULT_WINDOW): Pty {
  const c = libc();
  const master = c.posix_openpt(O.RDWR | O.NOCTTY | O.CLOEXEC);
  if (master < 0) throw osError("posix_openpt", errno());
  try {
    if (c.grantpt(master) !== 0) throw osError("grantpt", errno());
    if (c.unlockpt(master) !== 0) throw osError("unlockpt", errno());
    const name = new Uint8Array(PTSNAME_BYTES);
    const failed = c.ptsname_r(master, name, BigInt(name.length));
    if (failed !== 0) throw osError("ptsname_r", failed);
    const slavePath = new TextDecoder().decode(name.subarray(0, name.indexOf(0)));
    const size = new Uint16Array([window.rows, window.cols, 0, 0]);
    if (c.ioctl(master, BigInt(TIOCSWINSZ), new Uint8Array(size.buffer)) !== 0) {
      throw osError("ioctl(TIOCSWINSZ)", errno());
    }
    const slave = c.open(cString(slavePath), O.RDWR | O.NOCTTY | O.CLOEXEC, 0);
    if (slave < 0) throw osError(`open(${slavePath})`, errno());
    return { master, slave, slavePath };
  } catch (error) {
    closeFd(master);
    throw error;
  }
}

/**
 * Whether a PTY can be made here, checked once at start-up.
 * @example
 * ```ts
 * const { supported, reason } = probePty();
 * ```
 */
export function probePty(): { supported: boolean; reason: string | null } {
  try {
    const pty = openPty();
    closeFd(pty.slave);
    closeFd(pty.master);
    return { supported: true, reason: null };
  } catch (error) {
    return { supported: false, reason: `no pseudo-terminal can be opened: ${(error as Error).message}` };
  }
}
