import type { LaunchPlan } from "../policy/policy.ts";
import { ToolError } from "../errors.ts";
import type { SpawnRequest } from "../os/spawn_request.ts";
import { POLL, SIGNALS } from "../os/libc.ts";
import { closeFd, type ExitStatus, hasExited, killGroup, makePipe, reap, writeSome } from "../os/fd.ts";
import { launchChild, MAX_READS_PER_WAKE, PipeReader } from "../os/child.ts";
import { openPty } from "../os/pty.ts";
import { OutputStream } from "./output_stream.ts";
import type { Reactor } from "../os/reactor.ts";
import { childEnvironment } from "../policy/child_environment.ts";

/** How long streams may stay open after the leader exited (a writer that escaped the group). */
const DRAIN_GRACE_MS = 500;
/** End-of-file on a terminal in canonical mode (Ctrl-D). */
const TTY_EOF = "\x04";

/** What identifies a command besides its plan, and the retention budget of each of its streams. */
export type CommandOptions = Pick<Command, "id" | "cmd" | "tty"> & { perStreamBytes: number };

/** The streams of a command by name. */
export type StreamName = "stdout" | "stderr";

/**
 * A launched command: a session leader in its own process group, its pipes or PTY master, retained output, stdin.
 * When the leader exits, the rest of its group is killed (a background grandchild would hold the pipes or PTY open)
 * and the streams are drained to EOF before it counts as exited, so a fast command's output is never lost.
 */
export class Command {
  readonly id: string;
  readonly cmd: string;
  readonly tty: boolean;
  readonly pid: number;
  readonly startedAt = performance.now();
  readonly startedAtEpoch = Date.now();
  /** When output last arrived on either stream (performance.now()), or null before any. */
  lastOutputAt: number | null = null;
  readonly streams: Record<StreamName, OutputStream>;
  /** Offsets up to which each stream was already returned by a poll. */
  readonly cursors: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  /** Resolves once the leader is reaped and every stream is drained. */
  readonly done: Promise<void>;
  exit: ExitStatus | null = null;
  endedAt: number | null = null;
  exitedAtEpoch: number | null = null;

  readonly #reactor: Reactor;
  readonly #fds: Partial<Record<StreamName, number>>;
  #stdin: number | null;
  #stdinClosing = false;
  #pending: Uint8Array<ArrayBuffer>[] = [];
  #ttySlave: number | null;
  #drainTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #readers: Partial<Record<StreamName, PipeReader>> = {};
  #pidfd = -1;
  #complete = false;
  #resolveDone!: () => void;
  #outputArrived = Promise.withResolvers<void>();

  private constructor(
    reactor: Reactor,
    options: CommandOptions,
    pid: number,
    io: { fds: Partial<Record<StreamName, number>>; stdin: number; ttySlave: number | null },
  ) {
    this.#reactor = reactor;
    this.id = options.id;
    this.cmd = options.cmd;
    this.tty = options.tty;
    this.pid = pid;
    this.streams = {
      stdout: new OutputStream(options.perStreamBytes),
      stderr: new OutputStream(options.perStreamBytes),
    };
    this.#fds = io.fds;
    this.#stdin = io.stdin;
    this.#ttySlave = io.ttySlave;
    this.done = new Promise((resolve) => this.#resolveDone = resolve);
  }

  /** Opens pipes (or a PTY), spawns `plan` through `plan.spawner`, watches the child; rejects with fds closed. */
  static async launch(reactor: Reactor, plan: LaunchPlan, options: CommandOptions): Promise<Command> {
    const env = childEnvironment(plan.env, options.tty);
    // The child changes into the pinned directory through its fd (still open in the child until exec).
    const base = { argv: plan.argv, env, cwd: plan.chdir };
    let request: SpawnRequest;
    let fds: Parameters<typeof launchChild>[2];
    let io: { fds: Partial<Record<StreamName, number>>; stdin: number; ttySlave: number | null };
    if (options.tty) {
      let pty;
      try {
        pty = openPty();
      } catch (error) {
        throw new ToolError("TTY_UNSUPPORTED", `no pseudo-terminal can be opened: ${(error as Error).message}`);
      }
      request = { ...base, stdio: { stdin: -1, stdout: -1, stderr: -1 }, ttySlave: pty.slavePath };
      fds = { parent: [pty.master, pty.slave], child: [] };
      io = { fds: { stdout: pty.master }, stdin: pty.master, ttySlave: pty.slave };
    } else {
      const [inRead, inWrite] = makePipe();
      const [outRead, outWrite] = makePipe();
      const [errRead, errWrite] = makePipe();
      request = { ...base, stdio: { stdin: inRead, stdout: outWrite, stderr: errWrite } };
      fds = { parent: [inWrite, outRead, errRead], child: [inRead, outWrite, errWrite] };
      io = { fds: { stdout: outRead, stderr: errRead }, stdin: inWrite, ttySlave: null };
    }
    const { pid, pidfd } = await launchChild(plan.spawner, request, fds);
    const command = new Command(reactor, options, pid, io);
    command.#pidfd = pidfd;
    command.#watchStreams();
    reactor.watch(pidfd, POLL.IN, () => command.#onLeaderExit());
    return command;
  }

  get status(): "running" | "exited" {
    return this.#complete ? "exited" : "running";
  }

  get durationMs(): number {
    return Math.round((this.endedAt ?? performance.now()) - this.startedAt);
  }

  get stdinOpen(): boolean {
    return this.#stdin !== null && !this.#stdinClosing;
  }

  get retainedBytes(): number {
    return this.streams.stdout.retainedBytes + this.streams.stderr.retainedBytes;
  }

  /** Resolves when the next output arrives on either stream (never, once the command has exited). */
  nextOutput(): Promise<void> {
    return this.#outputArrived.promise;
  }

  /** Queues `text` for stdin and writes what the pipe or terminal takes now. */
  write(text: string): void {
    if (!this.stdinOpen || text.length === 0) return;
    this.#pending.push(new TextEncoder().encode(text));
    this.#flush();
  }

  /** Ends stdin: closes the pipe once pending input is written; on a TTY sends Ctrl-D (EOF at a line start). */
  closeStdin(): void {
    if (!this.stdinOpen) return;
    if (this.tty) {
      this.write(TTY_EOF);
      return;
    }
    this.#stdinClosing = true;
    this.#flush();
  }

  signal(signal: number): boolean {
    if (this.exit !== null) return false;
    return killGroup(this.pid, signal);
  }

  #watchStreams(): void {
    for (const name of ["stdout", "stderr"] as const) {
      const fd = this.#fds[name];
      if (fd === undefined) this.streams[name].close();
      else {
        this.#reactor.watch(fd, POLL.IN, (revents) => {
          if (revents & POLL.OUT) this.#flush();
          if (revents & ~POLL.OUT) this.#drain(name, fd);
        });
      }
    }
  }

  #drain(name: StreamName, fd: number): void {
    let reader = this.#readers[name];
    if (reader?.fd !== fd) reader = this.#readers[name] = new PipeReader(fd, !this.tty);
    const ended = reader.read(this.#reactor, (chunk) => {
      this.streams[name].append(chunk);
      this.lastOutputAt = performance.now();
      this.#outputArrived.resolve();
      this.#outputArrived = Promise.withResolvers<void>();
    }, MAX_READS_PER_WAKE);
    if (ended === "eof") this.#closeStream(name);
  }

  #closeStream(name: StreamName): void {
    const fd = this.#fds[name];
    if (fd === undefined) return;
    delete this.#fds[name];
    this.streams[name].close();
    if (fd === this.#stdin) {
      // The PTY master is stdin too.
      this.#stdin = null;
      this.#pending = [];
    }
    this.#reactor.close(fd);
    // Output ends as the leader exits: reap now rather than wait for the pidfd's own poll round.
    if (this.exit === null && this.#fds.stdout === undefined && this.#fds.stderr === undefined && hasExited(this.pid)) {
      this.#onLeaderExit();
    }
    this.#maybeFinish();
  }

  #flush(): void {
    const fd = this.#stdin;
    if (fd === null) return;
    while (this.#pending.length > 0) {
      const chunk = this.#pending[0];
      const written = writeSome(fd, chunk);
      if (written === "closed") {
        this.#pending = [];
        break;
      }
      if (written < chunk.length) {
        this.#pending[0] = chunk.subarray(written);
        break;
      }
      this.#pending.shift();
    }
    const waiting = this.#pending.length > 0;
    if (this.tty) {
      this.#reactor.setEvents(fd, POLL.IN | (waiting ? POLL.OUT : 0));
    } else if (waiting) {
      this.#reactor.watch(fd, POLL.OUT, () => this.#flush());
    } else if (this.#stdinClosing) {
      this.#stdin = null;
      this.#reactor.close(fd);
    } else this.#reactor.unwatch(fd);
  }

  #onLeaderExit(): void {
    // Kill what is left of the group while the zombie leader still holds its id.
    killGroup(this.pid, SIGNALS.KILL);
    const status = reap(this.pid);
    if (status === null) return;
    this.exit = status;
    this.endedAt = performance.now();
    this.exitedAtEpoch = Date.now();
    this.#reactor.close(this.#pidfd);
    if (this.#ttySlave !== null) {
      closeFd(this.#ttySlave);
      this.#ttySlave = null;
    }
    if (!this.#finished()) this.#drainTimer = setTimeout(() => this.#forceDrain(), DRAIN_GRACE_MS);
    this.#maybeFinish();
  }

  /** Reads what is buffered now and closes the streams a stray writer still holds. */
  #forceDrain(): void {
    for (const name of ["stdout", "stderr"] as const) {
      const fd = this.#fds[name];
      if (fd === undefined) continue;
      this.#drain(name, fd);
      this.#closeStream(name);
    }
  }

  #finished(): boolean {
    return this.exit !== null && this.#fds.stdout === undefined && this.#fds.stderr === undefined;
  }

  #maybeFinish(): void {
    if (!this.#finished() || this.#complete) return;
    this.#complete = true;
    clearTimeout(this.#drainTimer);
    if (this.#stdin !== null) {
      this.#reactor.close(this.#stdin);
      this.#stdin = null;
    }
    this.#pending = [];
    this.#resolveDone();
  }
}
