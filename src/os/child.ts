/**
 * The lifecycle every child of the server shares, whatever reads it (a
 * command's retained streams, rg's and git's chunk queues): spawning through
 * a spawner with the parent's and the child's ends of its stdio, its exit
 * watched by a pidfd (a kqueue on darwin: platform.ts), its process group
 * killed, and it reaped on every path — plus reading a nonblocking pipe in
 * bounded bursts.
 *
 * @example
 * ```ts
 * import { POLL } from "./libc.ts";
 * import { closeFd, makePipe, reap } from "./fd.ts";
 * import type { Reactor } from "./reactor.ts";
 * import type { Spawner } from "./spawn_request.ts";
 *
 * declare const spawner: Spawner;
 * declare const reactor: Reactor;
 * const [inRead, inWrite] = makePipe();
 * const [outRead, outWrite] = makePipe();
 * const child = await launchChild(
 *   spawner,
 *   { argv: ["echo", "hi"], env: {}, cwd: "/", stdio: { stdin: inRead, stdout: outWrite, stderr: outWrite } },
 *   { parent: [inWrite, outRead], child: [inRead, outWrite] },
 * );
 * closeFd(inWrite); // the child reads EOF
 * const output = new PipeReader(outRead);
 * reactor.watch(outRead, POLL.IN, () => {
 *   if (output.read(reactor, (chunk) => console.log(chunk.length)) === "eof") reactor.close(outRead);
 * });
 * reactor.watch(child.pidfd, POLL.IN, () => {
 *   if (reap(child.pid) !== null) reactor.close(child.pidfd);
 * });
 * ```
 */
import { SIGNALS } from "./libc.ts";
import type { Reactor } from "./reactor.ts";
import type { Spawner, SpawnRequest } from "./spawn_request.ts";
import { closeFd, growPipe, killGroup, readSome, reapKilled, setNonblocking } from "./fd.ts";
import { PROCESS } from "./platform.ts";

/** Reads per fd per wake-up before yielding to other fds and the event loop. */
export const MAX_READS_PER_WAKE = 8;
/** A read this large means the default pipe buffer was full: grow it (growing every pipe up front costs ms per spawn). */
const GROW_PIPE_AFTER_BYTES = 65536;

/** A started child: its pid (also its process group) and a pidfd (darwin: a kqueue) readable once it exits. */
export interface LaunchedChild {
  pid: number;
  pidfd: number;
}

/**
 * Spawns `request` through `spawner`. The child's ends (`fds.child`) are
 * closed here whatever happens; the parent's (`fds.parent`) are closed on
 * failure and otherwise made nonblocking. If anything fails after the spawn,
 * the child's group is killed and the child reaped, so it is never left a
 * zombie nobody watches.
 */
export async function launchChild(
  spawner: Spawner,
  request: SpawnRequest,
  fds: { parent: number[]; child: number[] },
): Promise<LaunchedChild> {
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

  /**
   * Reads up to `maxReads` chunks into `reactor.scratch`, handing each to
   * `onChunk` (a view of the scratch buffer, valid only during the call), as
   * long as `more()` allows. Ends with "eof" when the writer is gone,
   * "again" when nothing more is there now, "paused" when `more()` said stop.
   */
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
