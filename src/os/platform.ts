/**
 * The seam between the systems workcell runs on: how a child's exit is
 * watched and how the reactor is woken, chosen once, when this module loads,
 * from the C library's system (libc.ts {@linkcode HOST_OS}). Linux keeps its
 * own calls (a pidfd, an eventfd); darwin gets darwin.ts's (a kqueue per
 * child, a pipe). The constants and struct layouts that differ are libc.ts's
 * and darwin_abi.ts's; the sandbox of the children is the policy's
 * (src/policy/child_spawners.ts picks the launcher or Seatbelt).
 *
 * @example
 * ```ts
 * declare const pid: number; // a child of this process
 * const exitFd = PROCESS.exitFd(pid); // readable once it has exited
 * ```
 */
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
