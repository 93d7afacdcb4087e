/**
 * A child whose stdout the caller reads as it arrives and can end at once:
 * the runtime of ripgrep (search/ripgrep.ts) and of git (git/runner.ts).
 * It is spawned through a {@linkcode Spawner} (the sandbox plan's launcher)
 * in its own process group; its pipes and its exit (a pidfd) are read
 * through a {@linkcode Reactor}, so no thread blocks per child. stdout stops
 * being read while the consumer has `bufferedBytes` unread, so a slow
 * consumer slows the child instead of growing memory; stderr keeps only its
 * first `stderrKeepBytes`.
 *
 * @example
 * ```ts
 * import type { Reactor } from "./reactor.ts";
 * import type { Spawner } from "./spawn_request.ts";
 *
 * declare const reactor: Reactor;
 * declare const spawner: Spawner;
 * const request = { argv: ["rg", "--files"], env: { PATH: "/usr/bin:/bin" }, cwd: "/repo" };
 * const limits: PipedLimits = { bufferedBytes: 1 << 20, stderrKeepBytes: 4096 };
 * await using child = await startPipedChild(reactor, spawner, request, limits);
 * let lines = 0;
 * for await (const chunk of child.chunks()) {
 *   lines += chunk.filter((byte) => byte === 0x0a).length;
 *   if (lines >= 1000) {
 *     child.kill();
 *     break;
 *   }
 * }
 * const outcome = await child.finish(); // { code: null, killed: true, stderr: "" } when it was cut short
 * ```
 */
import { cString, errno, libc, O, POLL, SIGNALS } from "./libc.ts";
import type { Spawner, SpawnRequest } from "./spawn_request.ts";
import type { Reactor } from "./reactor.ts";
import { osError } from "./os_error.ts";
import { closeFd, type ExitStatus, killGroup, makePipe, reap } from "./fd.ts";
import { launchChild, PipeReader } from "./child.ts";
import { memfdWith } from "./executable.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** lseek(2) whence: from the start. */
const SEEK_SET = 0;

/** Bounds of one child's buffering. */
export interface PipedLimits {
  /** Unread stdout bytes at which reading pauses until the consumer catches up. */
  bufferedBytes: number;
  /** Bytes of stderr kept for messages. */
  stderrKeepBytes: number;
}

/** What to start: a spawn request without stdio (the runtime makes the pipes). */
export type PipedRequest = Omit<SpawnRequest, "stdio" | "ttySlave"> & {
  /**
   * The child's stdin: an fd of this process (a file to read), or bytes (put in a memfd the child reads from
   * the start); /dev/null without it.
   */
  stdin?: number | Uint8Array<ArrayBuffer>;
  /** Ends the child when aborted. */
  signal?: AbortSignal;
};

/** How a run ended. */
export interface PipedOutcome {
  /** Exit code; null when the child was killed or died of a signal. */
  code: number | null;
  /** Whether the caller ended the child before it finished. */
  killed: boolean;
  /** The start of stderr, decoded. */
  stderr: string;
}

/** A running child. */
export interface PipedChild extends AsyncDisposable {
  /** stdout as it arrives. Leaving the loop early does not end the child: call {@linkcode PipedChild.kill}. */
  chunks(): AsyncIterable<Uint8Array>;
  /** Ends the child now (SIGKILL to its process group). */
  kill(): void;
  /** Waits for the child to exit (after the caller stopped reading or killed it), reading and dropping what is left. */
  finish(): Promise<PipedOutcome>;
  /** Resolves once the child is reaped and both pipes are closed. */
  readonly ended: Promise<void>;
}

function openDevNull(): number {
  const fd = libc().open(cString("/dev/null"), O.RDONLY | O.CLOEXEC, 0);
  if (fd < 0) throw osError("open /dev/null", errno());
  return fd;
}

/** A close-on-exec memfd holding `bytes`, positioned at its start. */
function memfdReading(bytes: Uint8Array<ArrayBuffer>): number {
  const fd = memfdWith("stdin", bytes);
  if (libc().lseek(fd, 0n, SEEK_SET) < 0n) {
    const code = errno();
    closeFd(fd);
    throw osError("lseek", code);
  }
  return fd;
}

/**
 * Starts `request` through `spawner` with stdout and stderr piped to this
 * process. Disposing the child (`await using`) kills it if needed and waits
 * for it, so no fd, pidfd or zombie is left on any path. Rejects with the
 * spawner's error (every fd closed).
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
    stdin = typeof given === "number" ? given : given === undefined ? openDevNull() : memfdReading(given);
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
  readonly ended: Promise<void>;
  #resolveEnded!: () => void;

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
    this.ended = new Promise((resolve) => this.#resolveEnded = resolve);
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
    return { code: this.#killed ? null : this.#exit.code, killed: this.#killed, stderr: this.#stderrText() };
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
    if (this.#stdout === null && this.#stderr === null && this.#exit !== null) this.#resolveEnded();
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

  #stderrText(): string {
    return new TextDecoder().decode(joinBytes(this.#errParts));
  }
}
