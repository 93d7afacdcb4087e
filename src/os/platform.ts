/** How running children differ by system, chosen at load: Linux's pidfd and eventfd, or darwin.ts's kqueue and pipe. */
import { HOST_OS } from "./libc.ts";
import { eventfdOpen, pidfdOpen } from "./fd.ts";
import { kqueueExitFd, pipeWakeChannel, type WakeChannel } from "./darwin.ts";

export type { WakeChannel } from "./darwin.ts";

/** The calls of running children that differ between the systems. */
export interface ProcessCalls {
  /** An fd that becomes readable once the child `pid` has exited (a pidfd on Linux, a kqueue on darwin). */
  exitFd(pid: number): number;
  /** A channel whose write end wakes a poll() on its read end (one eventfd on Linux, a pipe on darwin). */
  wakeChannel(): WakeChannel;
}

const LINUX: ProcessCalls = {
  exitFd: pidfdOpen,
  wakeChannel: () => {
    const fd = eventfdOpen();
    return { read: fd, write: fd };
  },
};

const DARWIN: ProcessCalls = { exitFd: kqueueExitFd, wakeChannel: pipeWakeChannel };

/** This system's calls. */
export const PROCESS: ProcessCalls = HOST_OS === "darwin" ? DARWIN : LINUX;
