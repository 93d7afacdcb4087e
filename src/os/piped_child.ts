/**
 * ripgrep's and git's runtime: a child whose stdout is read as it arrives, through a Reactor (no thread per child);
 * stdout pauses while `bufferedBytes` are unread, so a slow consumer slows the child instead of growing memory.
 */
import { cString, libc, O, POLL, SIGNALS } from "./libc.ts";
import type { Spawner, SpawnRequest } from "./spawn_request.ts";
import type { Reactor } from "./reactor.ts";
import { check } from "./fs_call.ts";
import { closeFd, type ExitStatus, killGroup, makePipe, reap } from "./fd.ts";
import { launchChild, PipeReader } from "./child.ts";
import { memfdWith } from "./executable.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** Bounds of one child's buffering. */
export interface PipedLimits {
  /** Unread stdout bytes at which reading pauses until the consumer catches up. */
  bufferedBytes: number;
  stderrKeepBytes: number;
}

/** What to start: a spawn request without stdio (the runtime makes the pipes). */
export type PipedRequest = Omit<SpawnRequest, "stdio" | "ttySlave"> & {
  /** An fd of this process, or bytes (in a memfd the child reads from the start); /dev/null without it. */
  stdin?: number | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
};

/** How a run ended. */
export interface PipedOutcome {
  /** Exit code; null when the child was killed or died of a signal. */
  code: number | null;
  killed: boolean;
  /** The start of stderr, decoded. */
  stderr: string;
}

/** A running child. */
export interface PipedChild extends AsyncDisposable {
  /** stdout as it arrives. Leaving the loop early does not end the child: call kill(). */
  chunks(): AsyncIterable<Uint8Array>;
  /** Ends the child now (SIGKILL to its process group). */
  kill(): void;
  /** Waits for the child to exit (after the caller stopped reading or killed it), reading and dropping what is left. */
  finish(): Promise<PipedOutcome>;
  /** Resolves once the child is reaped and both pipes are closed. */
  readonly ended: Promise<void>;
}

function openDevNull(): number {
  return check(libc().open(cString("/dev/null"), O.RDONLY | O.CLOEXEC, 0), "open /dev/null");
}

/**
 * Starts `request` through `spawner` in its own process group, stdout and stderr piped here. Disposing the child
 * (`await using`) kills it if needed and waits, so no fd, pidfd or zombie is left; rejects with the spawner's error.
 */
export async function startPipedChild(
  reactor: Reactor,
  spawner: Spawner,
  request: PipedRequest,
  limits: PipedLimits,
): Promise<PipedChild> {
  const opened: number[] = [];
  let stdin: number, stdout: [number, number], stderr: [number, number];
  try {
    const given = request.stdin;
    stdin = typeof given === "number" ? given : given === undefined ? openDevNull() : memfdWith("stdin", given);
    if (typeof given !== "number") opened.push(stdin);
    stdout = makePipe();
    opened.push(...stdout);
    stderr = makePipe();
    opened.push(...stderr);
  } catch (error) {
    for (const fd of opened) closeFd(fd);
    throw error;
  }
  const { stdin: _stdin, signal, ...spawn } = request;
  const childEnds = [stdout[1], stderr[1], ...(typeof request.stdin === "number" ? [] : [stdin])];
  const { pid, pidfd } = await launchChild(
    spawner,
    { ...spawn, stdio: { stdin, stdout: stdout[1], stderr: stderr[1] } },
    { parent: [stdout[0], stderr[0]], child: childEnds },
  );
  return new RunningChild(reactor, limits, signal, pid, pidfd, stdout[0], stderr[0]);
}

/** One child, its two pipes and its pidfd, driven by reactor callbacks. */
class RunningChild implements PipedChild {
  readonly #reactor: Reactor;
  readonly #limits: PipedLimits;
  readonly #signal: AbortSignal | undefined;
  readonly #pid: number;
  readonly #onAbort = () => this.kill();
  #stdout: PipeReader | null;
  #stderr: PipeReader | null;
  #pidfd: number | null;
  #exit: ExitStatus | null = null;
  #killed = false;
  /** Read but not yet consumed stdout chunks, and their total size. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  #paused = false;
  /** Set by finish() when the caller no longer reads: stdout is read to its end and dropped. */
  #discard = false;
  readonly #errParts: Uint8Array[] = [];
  #errKept = 0;
  /** Resolvers of whoever waits for the next change (a chunk, an EOF, the exit). */
  #waiters: (() => void)[] = [];
  readonly #ended = Promise.withResolvers<void>();
  readonly ended: Promise<void> = this.#ended.promise;

  constructor(
    reactor: Reactor,
    limits: PipedLimits,
    signal: AbortSignal | undefined,
    pid: number,
    pidfd: number,
    out: number,
    err: number,
  ) {
    this.#reactor = reactor;
    this.#limits = limits;
    this.#signal = signal;
    this.#pid = pid;
    this.#pidfd = pidfd;
    this.#stdout = new PipeReader(out);
    this.#stderr = new PipeReader(err);
    this.#reactor.watch(out, POLL.IN, () => this.#readStdout());
    this.#reactor.watch(err, POLL.IN, () => this.#readStderr());
    this.#reactor.watch(pidfd, POLL.IN, () => this.#onExit());
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (signal?.aborted) this.kill();
  }

  async *chunks(): AsyncIterable<Uint8Array> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        this.#queued -= chunk.length;
        this.#resumeIfDrained();
        yield chunk;
      } else if (this.#stdout === null) return;
      else await this.#changed();
    }
  }

  kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    // Not once reaped: the group id could belong to someone else by then.
    if (this.#exit === null) killGroup(this.#pid, SIGNALS.KILL);
    this.#queue = [];
    this.#queued = 0;
    this.#closeStdout();
  }

  async finish(): Promise<PipedOutcome> {
    if (!this.#killed) {
      // Drain whatever the caller did not read so the child is never blocked on a full pipe.
      this.#discard = true;
      this.#queue = [];
      this.#queued = 0;
      this.#resumeIfDrained();
    }
    while (this.#stdout !== null || this.#stderr !== null || this.#exit === null) await this.#changed();
    this.#signal?.removeEventListener("abort", this.#onAbort);
    const stderr = new TextDecoder().decode(joinBytes(this.#errParts));
    return { code: this.#killed ? null : this.#exit.code, killed: this.#killed, stderr };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#stdout !== null || this.#exit === null) this.kill();
    await this.finish();
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #notify(): void {
    for (const wake of this.#waiters.splice(0)) wake();
    if (this.#stdout === null && this.#stderr === null && this.#exit !== null) this.#ended.resolve();
  }

  #readStdout(): void {
    const reader = this.#stdout;
    if (reader === null) return;
    const limit = this.#limits.bufferedBytes;
    const ended = reader.read(
      this.#reactor,
      (chunk) => {
        if (this.#discard) return;
        this.#queue.push(chunk.slice());
        this.#queued += chunk.length;
      },
      undefined,
      () => this.#queued < limit,
    );
    if (ended === "eof") {
      this.#closeStdout();
      return;
    }
    if (this.#queued >= limit && !this.#paused) {
      this.#paused = true;
      this.#reactor.unwatch(reader.fd);
    }
    this.#notify();
  }

  #resumeIfDrained(): void {
    if (!this.#paused || this.#stdout === null || this.#queued >= this.#limits.bufferedBytes / 2) return;
    this.#paused = false;
    this.#reactor.watch(this.#stdout.fd, POLL.IN, () => this.#readStdout());
  }

  #closeStdout(): void {
    if (this.#stdout === null) return;
    this.#reactor.close(this.#stdout.fd);
    this.#stdout = null;
    this.#notify();
  }

  #readStderr(): void {
    const reader = this.#stderr;
    if (reader === null) return;
    const ended = reader.read(this.#reactor, (chunk) => {
      const keep = Math.min(chunk.length, this.#limits.stderrKeepBytes - this.#errKept);
      if (keep <= 0) return;
      this.#errParts.push(chunk.slice(0, keep));
      this.#errKept += keep;
    });
    if (ended !== "eof") return;
    this.#reactor.close(reader.fd);
    this.#stderr = null;
    this.#notify();
  }

  #onExit(): void {
    const status = reap(this.#pid);
    if (status === null || this.#pidfd === null) return;
    this.#exit = status;
    this.#reactor.close(this.#pidfd);
    this.#pidfd = null;
    this.#notify();
  }
}
