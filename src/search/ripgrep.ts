/**
 * Runs the bundled ripgrep as a child the caller reads as it goes and can
 * end at once. rg gets an empty environment (no RIPGREP_CONFIG_PATH, no
 * HOME, so no config file and no global gitignore), never `-L`, stdin from
 * /dev/null, and its stdout arrives as raw chunks so a cap can stop it
 * mid-walk.
 *
 * rg is spawned with posix_spawnp through a {@linkcode Spawner} (the
 * read-only Landlock sandbox's, see ripgrep_runner.ts), in its own process
 * group, with its working directory pinned by an fd: it starts in
 * `/proc/self/fd/<dir>`, which the kernel resolves to the very directory the
 * fd holds, not to whatever a path names at that moment. Its pipes and its
 * exit (a pidfd) are read through the exec {@linkcode Reactor}: no blocking
 * read per run, and stdout stops being read while the consumer has
 * {@linkcode RG_BUFFERED_BYTES} unread, so a slow consumer slows rg instead
 * of growing memory.
 *
 * @example
 * await using rg = await spawnRipgrep(launch, { args: ["--files", "-0", "--", "."], dir: dirFd });
 * for await (const chunk of rg.chunks()) { ...; if (enough) { rg.kill(); break; } }
 * const outcome = await rg.finish();
 */
import { decodeBytes, type Decoded } from "../text/utf8.ts";
import { ToolError } from "../errors.ts";
import type { Spawner } from "../exec/spawn_request.ts";
import type { Reactor } from "../exec/reactor.ts";
import {
  closeFd,
  type ExitStatus,
  growPipe,
  killGroup,
  makePipe,
  OsError,
  pidfdOpen,
  readSome,
  reap,
  reapKilled,
  setNonblocking,
} from "../exec/fd.ts";
import { cString, errno, libc, O, POLL, SIGNALS } from "../os/libc.ts";
import { fdPath } from "../os/fs_at.ts";

/** Flags every rg run starts with: no config file, no global excludes, no symlink following. */
export const RG_BASE_ARGS: readonly string[] = ["--no-config", "--no-ignore-global", "--no-follow"];

/** How many bytes of rg's stderr are kept for error messages. */
export const RG_STDERR_KEEP_BYTES = 16 * 1024;

/** Unread stdout bytes at which reading pauses until the consumer catches up. */
export const RG_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Reads per pipe per wake-up before yielding to other fds and the event loop. */
const MAX_READS_PER_WAKE = 8;
/** A read this large means the default pipe buffer was full: grow it (growing up front costs ms per spawn). */
const GROW_PIPE_AFTER_BYTES = 65536;

/** How rg is started: the binary, the spawner and the reactor its pipes are read through. */
export interface RipgrepLaunch {
  rgPath: string;
  spawner: Spawner;
  reactor: Reactor;
  /** Whether the spawner confines rg's reads to the workspace by the kernel (Landlock). */
  confined: boolean;
}

/** What to run. */
export interface RipgrepRequest {
  /** Arguments after {@linkcode RG_BASE_ARGS}; paths in them are relative to `dir`. */
  args: readonly string[];
  /** An open fd (O_PATH is enough) of the directory rg starts in; the caller closes it once the spawn resolved. */
  dir: number;
  /** Ends rg when aborted. */
  signal?: AbortSignal;
}

/** How a run ended. */
export interface RipgrepOutcome {
  /** rg's exit code (0 found, 1 nothing found, 2 error); null when it was killed. */
  code: number | null;
  /** Whether the caller ended rg before it finished. */
  killed: boolean;
  /** The start of rg's stderr, decoded. */
  stderr: string;
}

/** A running rg. */
export interface RipgrepProcess extends AsyncDisposable {
  /** Whether this rg runs inside the read-only sandbox (see {@linkcode RipgrepLaunch.confined}). */
  readonly confined: boolean;
  /** rg's stdout as it arrives. Leaving the loop early does not end rg: call {@linkcode RipgrepProcess.kill}. */
  chunks(): AsyncIterable<Uint8Array>;
  /** Ends rg now (SIGKILL to its process group): it must not walk on after the caller has enough. */
  kill(): void;
  /** Waits for rg to exit (after the caller stopped reading or killed it), reading and dropping what is left. */
  finish(): Promise<RipgrepOutcome>;
  /** Resolves once rg is reaped and both pipes are closed. */
  readonly ended: Promise<void>;
}

function openDevNull(): number {
  const fd = libc().open(cString("/dev/null"), O.RDONLY | O.CLOEXEC, 0);
  if (fd < 0) throw new OsError("open /dev/null", errno());
  return fd;
}

/**
 * Starts rg with `request.args` after {@linkcode RG_BASE_ARGS} in the directory `request.dir` holds, with an
 * empty environment. Disposing the process (`await using`) kills it if needed and waits for it, so no fd, pidfd
 * or zombie is left on any path.
 *
 * @example
 * await using rg = await spawnRipgrep(launch, { args: ["--json", "-F", "-e", "TODO", "--", "."], dir: srcFd });
 */
export async function spawnRipgrep(launch: RipgrepLaunch, request: RipgrepRequest): Promise<RipgrepProcess> {
  const opened: number[] = [];
  let stdin: number, stdout: [number, number], stderr: [number, number];
  try {
    stdin = openDevNull();
    opened.push(stdin);
    stdout = makePipe();
    opened.push(...stdout);
    stderr = makePipe();
    opened.push(...stderr);
  } catch (error) {
    for (const fd of opened) closeFd(fd);
    throw cannotStart(launch.rgPath, error);
  }
  let pid: number;
  try {
    pid = await launch.spawner({
      argv: [launch.rgPath, ...RG_BASE_ARGS, ...request.args],
      env: {},
      cwd: fdPath(request.dir),
      stdio: { stdin, stdout: stdout[1], stderr: stderr[1] },
      programFd: programFdOf(launch.rgPath),
    });
  } catch (error) {
    closeFd(stdout[0]);
    closeFd(stderr[0]);
    throw cannotStart(launch.rgPath, error);
  } finally {
    closeFd(stdin);
    closeFd(stdout[1]);
    closeFd(stderr[1]);
  }
  let pidfd: number;
  try {
    pidfd = pidfdOpen(pid);
    setNonblocking(stdout[0]);
    setNonblocking(stderr[0]);
  } catch (error) {
    killGroup(pid, SIGNALS.KILL);
    closeFd(stdout[0]);
    closeFd(stderr[0]);
    await reapKilled(pid);
    throw cannotStart(launch.rgPath, error);
  }
  return new RunningRipgrep(launch, request.signal, pid, pidfd, stdout[0], stderr[0]);
}

/** The fd behind an rg path of the form `/proc/self/fd/N` (the compiled binary's memfd), else undefined. */
function programFdOf(rgPath: string): number | undefined {
  const match = /^\/proc\/self\/fd\/(\d+)$/.exec(rgPath);
  return match ? Number(match[1]) : undefined;
}

function cannotStart(rgPath: string, error: unknown): ToolError {
  return new ToolError("INTERNAL", `the bundled ripgrep cannot be started (${rgPath}): ${(error as Error).message}`, {
    hint: "server_info.runtime.ripgrep shows where rg was expected; reinstall or rebuild the server.",
    cause: error,
  });
}

/** One rg child, its two pipes and its pidfd, driven by reactor callbacks. */
class RunningRipgrep implements RipgrepProcess {
  readonly confined: boolean;
  readonly #reactor: Reactor;
  readonly #signal: AbortSignal | undefined;
  readonly #pid: number;
  readonly #onAbort = () => this.kill();
  #stdout: number | null;
  #stderr: number | null;
  #pidfd: number | null;
  #exit: ExitStatus | null = null;
  #killed = false;
  /** Read but not yet consumed stdout chunks, and their total size. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  #paused = false;
  /** Set by finish() when the caller no longer reads: stdout is read to its end and dropped. */
  #discard = false;
  #grown = false;
  readonly #errParts: Uint8Array[] = [];
  #errKept = 0;
  /** Resolvers of whoever waits for the next change (a chunk, an EOF, the exit). */
  #waiters: (() => void)[] = [];
  readonly ended: Promise<void>;
  #resolveEnded!: () => void;

  constructor(
    launch: RipgrepLaunch,
    signal: AbortSignal | undefined,
    pid: number,
    pidfd: number,
    out: number,
    err: number,
  ) {
    this.confined = launch.confined;
    this.#reactor = launch.reactor;
    this.#signal = signal;
    this.#pid = pid;
    this.#pidfd = pidfd;
    this.#stdout = out;
    this.#stderr = err;
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

  async finish(): Promise<RipgrepOutcome> {
    if (!this.#killed) {
      // Drain whatever the caller did not read so rg is never blocked on a full pipe.
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
    const fd = this.#stdout;
    if (fd === null) return;
    const scratch = this.#reactor.scratch;
    for (let reads = 0; reads < MAX_READS_PER_WAKE && this.#queued < RG_BUFFERED_BYTES; reads++) {
      const result = readSome(fd, scratch);
      if (result === "again") break;
      if (result === "eof") {
        this.#closeStdout();
        return;
      }
      if (!this.#discard) {
        this.#queue.push(scratch.slice(0, result));
        this.#queued += result;
      }
      if (result >= GROW_PIPE_AFTER_BYTES && !this.#grown) {
        this.#grown = true;
        growPipe(fd);
      }
    }
    if (this.#queued >= RG_BUFFERED_BYTES && !this.#paused) {
      this.#paused = true;
      this.#reactor.unwatch(fd);
    }
    this.#notify();
  }

  #resumeIfDrained(): void {
    if (!this.#paused || this.#stdout === null || this.#queued >= RG_BUFFERED_BYTES / 2) return;
    this.#paused = false;
    const fd = this.#stdout;
    this.#reactor.watch(fd, POLL.IN, () => this.#readStdout());
  }

  #closeStdout(): void {
    if (this.#stdout === null) return;
    this.#reactor.close(this.#stdout);
    this.#stdout = null;
    this.#notify();
  }

  #readStderr(): void {
    const fd = this.#stderr;
    if (fd === null) return;
    const scratch = this.#reactor.scratch;
    for (let reads = 0; reads < MAX_READS_PER_WAKE; reads++) {
      const result = readSome(fd, scratch);
      if (result === "again") return;
      if (result === "eof") {
        this.#reactor.close(fd);
        this.#stderr = null;
        this.#notify();
        return;
      }
      const keep = Math.min(result, RG_STDERR_KEEP_BYTES - this.#errKept);
      if (keep > 0) {
        this.#errParts.push(scratch.slice(0, keep));
        this.#errKept += keep;
      }
    }
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
    const all = new Uint8Array(this.#errKept);
    let at = 0;
    for (const part of this.#errParts) {
      all.set(part, at);
      at += part.length;
    }
    return new TextDecoder().decode(all);
  }
}

/**
 * rg's stderr as at most `max` warning lines naming workspace-relative paths. rg names a path relative to the
 * directory it started in (`./sub/x`, or the searched file's `name`); `prefix` is that directory's
 * workspace-relative path with a trailing `/` ("" for the root).
 *
 * @example
 * rgWarnings("rg: ./x: Permission denied (os error 13)\n", "src/", 20); // ["rg: src/x: Permission denied (os error 13)"]
 */
export function rgWarnings(stderr: string, prefix: string, max: number, name = "."): string[] {
  return stderr.split("\n").map((line) => line.trim()).filter(Boolean).slice(0, max).map((line) =>
    line.startsWith("rg: ./")
      ? `rg: ${prefix}${line.slice("rg: ./".length)}`
      : name !== "." && line.startsWith(`rg: ${name}: `)
      ? `rg: ${prefix}${line.slice("rg: ".length)}`
      : line
  );
}

/** A path or line as rg's JSON gives it: `{text}` when it is UTF-8, `{bytes}` (base64) when not. */
export type RgData = { text: string } | { bytes: string };

/**
 * Decodes rg's `{text}` / `{bytes}` form; `{bytes}` that are not valid UTF-8 come back lossy.
 *
 * @example
 * decodeRgData({ bytes: "YWL/" }); // { text: "ab\uFFFD", lossy: true }
 */
export function decodeRgData(data: RgData): Decoded {
  if ("text" in data) return { text: data.text, lossy: false };
  return decodeBytes(Uint8Array.from(atob(data.bytes), (char) => char.charCodeAt(0)));
}
