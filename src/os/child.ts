/** The lifecycle all children share: spawn, exit watch (pidfd; darwin: kqueue), group kill and reap on every path. */
import { SIGNALS } from "./libc.ts";
import type { Reactor } from "./reactor.ts";
import type { Spawner, SpawnRequest } from "./spawn_request.ts";
import { closeFd, growPipe, killGroup, readSome, reapKilled, setNonblocking } from "./fd.ts";
import { PROCESS } from "./platform.ts";

/** Reads per fd per wake-up before yielding to other fds and the event loop. */
export const MAX_READS_PER_WAKE = 8;
/** A read this large means the default pipe buffer was full: grow it (growing all pipes up front costs ms a spawn). */
const GROW_PIPE_AFTER_BYTES = 65536;

/**
 * Spawns `request`, always closing `fds.child`; on failure closes `fds.parent` and kills and reaps a spawned child.
 * Resolves to its pid (also its process group) and a pidfd (darwin: a kqueue) readable once it exits.
 */
export async function launchChild(
  spawner: Spawner,
  request: SpawnRequest,
  fds: { parent: number[]; child: number[] },
): Promise<{ pid: number; pidfd: number }> {
  let pid: number;
  try {
    pid = await spawner(request);
  } catch (error) {
    for (const fd of fds.parent) closeFd(fd);
    throw error;
  } finally {
    for (const fd of fds.child) closeFd(fd);
  }
  let pidfd = -1;
  try {
    pidfd = PROCESS.exitFd(pid);
    for (const fd of fds.parent) setNonblocking(fd);
    return { pid, pidfd };
  } catch (error) {
    killGroup(pid, SIGNALS.KILL);
    for (const fd of fds.parent) closeFd(fd);
    if (pidfd >= 0) closeFd(pidfd);
    await reapKilled(pid);
    throw error;
  }
}

/** A pipe read in bursts: whether its buffer was grown, so a large reader asks for more room once. */
export class PipeReader {
  #grown = false;

  /** @param growable false for a PTY master, whose buffer cannot be resized. */
  constructor(readonly fd: number, readonly growable = true) {}

  /** Reads at most `maxReads` chunks while `more()`; `onChunk` gets views of `reactor.scratch`, valid in the call. */
  read(
    reactor: Reactor,
    onChunk: (chunk: Uint8Array) => void,
    maxReads = MAX_READS_PER_WAKE,
    more: () => boolean = () => true,
  ): "eof" | "again" | "paused" {
    const scratch = reactor.scratch;
    for (let reads = 0; reads < maxReads; reads++) {
      if (!more()) return "paused";
      const result = readSome(this.fd, scratch);
      if (result === "again" || result === "eof") return result;
      onChunk(scratch.subarray(0, result));
      if (result >= GROW_PIPE_AFTER_BYTES && this.growable && !this.#grown) {
        this.#grown = true;
        growPipe(this.fd);
      }
    }
    return more() ? "again" : "paused";
  }
}
