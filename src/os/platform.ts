/** How running children differ by system, chosen at load: Linux's pidfd and eventfd, or darwin.ts's kqueue and pipe. */
import { HOST_OS } from "./libc.ts";
import { eventfdOpen, pidfdOpen } from "./fd.ts";
import { kqueueExitFd, pipeWakeChannel, type WakeChannel } from "./darwin.ts";

/** The calls of running children that differ between the systems. */
const LINUX = {
  /** An fd that becomes readable once the child `pid` has exited (a pidfd on Linux, a kqueue on darwin). */
  exitFd: pidfdOpen,
  /** A channel whose write end wakes a poll() on its read end (one eventfd on Linux, a pipe on darwin). */
  wakeChannel: (): WakeChannel => {
    const fd = eventfdOpen();
    return { read: fd, write: fd };
  },
};

/** This system's calls. */
export const PROCESS: typeof LINUX = HOST_OS === "darwin"
  ? { exitFd: kqueueExitFd, wakeChannel: pipeWakeChannel }
  : LINUX;
