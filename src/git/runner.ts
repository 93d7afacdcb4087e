/**
 * Runs git for reading: a clean environment, the safety overrides of
 * ./safety.ts, `--no-optional-locks`, literal pathspecs, a time limit, and
 * stdout streamed to a consumer that may stop it early (git is then
 * killed, so a bounded answer never costs an unbounded read). git is a
 * piped child (os/piped_child.ts) started through the spawner of its
 * sandbox (policy/linux_spawners.ts): it can read the workspace, its repository's
 * git dirs and the system, execute nothing but git, write nothing, and open
 * no network socket.
 *
 * @example
 * ```ts
 * declare const launch: GitLaunch; // git's binary, its sandboxed spawner and the reactor
 * const run = await runGit(launch, { cwd: "/repo", args: ["rev-parse", "HEAD"] });
 * new TextDecoder().decode(run.stdout); // "3f2a…\n"
 * ```
 */
import { ToolError } from "../errors.ts";
import { fixedConfigArgs } from "./safety.ts";
import type { Spawner } from "../os/spawn_request.ts";
import type { Reactor } from "../os/reactor.ts";
import { startPipedChild } from "../os/piped_child.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** Longest a git run may take before it is killed and TIMEOUT is reported. */
export const GIT_TIMEOUT_MS = 60_000;
/** Bytes of stderr kept for error messages. */
export const STDERR_EXCERPT_BYTES = 4096;
/** Bytes of stdout collected when no consumer streams it. */
export const DEFAULT_COLLECT_BYTES = 8 * 1024 * 1024;
/** Unread stdout bytes at which reading pauses until the consumer catches up. */
const BUFFERED_BYTES = 4 * 1024 * 1024;

/** How git is started: its binary, the spawner of its sandbox and the reactor its pipes are read through. */
export interface GitLaunch {
  binary: string;
  spawner: Spawner;
  reactor: Reactor;
}

/** One git invocation. */
export interface GitRequest {
  /** Directory git runs in. */
  cwd: string;
  /** Arguments after the global options (subcommand first). */
  args: string[];
  /** Extra environment (e.g. driver overrides from ./safety.ts). */
  env?: Record<string, string>;
  /**
   * Receives stdout as it arrives; return `false` to stop reading and kill git.
   * Without it, stdout is collected up to `collectBytes`.
   */
  onStdout?: (chunk: Uint8Array) => boolean | void;
  /** Bound on collected stdout when there is no `onStdout` (default {@linkcode DEFAULT_COLLECT_BYTES}). */
  collectBytes?: number;
  /** Kills git when aborted. */
  signal?: AbortSignal;
  /** git's stdin: an fd (a file opened for reading) or the bytes themselves; /dev/null without it. */
  stdin?: number | Uint8Array<ArrayBuffer>;
}

/** What a run produced. */
export interface GitRun {
  /** Exit code (meaningless when `stopped`). */
  code: number;
  /** Collected stdout (empty when streamed to `onStdout`). */
  stdout: Uint8Array;
  /** The first {@linkcode STDERR_EXCERPT_BYTES} of stderr, decoded. */
  stderr: string;
  /** True when the consumer (or the collect bound) stopped git before it finished. */
  stopped: boolean;
}

/** The environment every git child gets: nothing inherited but PATH, HOME and XDG_CONFIG_HOME; output fully buffered. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_CONFIG_COUNT: "0",
    // On a pipe git log flushes after every commit: 500 commits were 500 writes, each a reactor wake-up here.
    // Fully buffered output comes in pipe-sized chunks; nothing talks to git interactively.
    GIT_FLUSH: "0",
  };
  for (const name of ["HOME", "XDG_CONFIG_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** The full argument list for a read: global safety options, then `args`. */
export function gitArgs(args: readonly string[]): string[] {
  return ["--no-pager", "--no-optional-locks", "--literal-pathspecs", ...fixedConfigArgs(), ...args];
}

/**
 * Runs git and streams or collects its stdout. Never throws for a non-zero
 * exit (see {@linkcode gitFailure}); throws TIMEOUT, or GIT_FAILED when git
 * cannot be started.
 *
 * @example
 * ```ts
 * import { CommitParser } from "./log.ts";
 *
 * declare const launch: GitLaunch;
 * const parser = new CommitParser();
 * await runGit(launch, { cwd: "/repo", args: ["log", "-z"], onStdout: (chunk) => parser.push(chunk) });
 * ```
 */
export async function runGit(launch: GitLaunch, request: GitRequest): Promise<GitRun> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), GIT_TIMEOUT_MS);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
  try {
    let child;
    try {
      child = await startPipedChild(launch.reactor, launch.spawner, {
        argv: [launch.binary, ...gitArgs(request.args)],
        env: gitEnv(request.env),
        cwd: request.cwd,
        stdin: request.stdin,
        signal,
      }, { bufferedBytes: BUFFERED_BYTES, stderrKeepBytes: STDERR_EXCERPT_BYTES });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError("GIT_FAILED", `cannot run git: ${message}`, {
        hint: "check_exec_environment shows the git tools' sandbox; git must be installed and on PATH.",
        cause: error,
      });
    }
    const stdout = new ByteCollector(request.collectBytes ?? DEFAULT_COLLECT_BYTES);
    let stopped = false;
    let outcome;
    try {
      for await (const chunk of child.chunks()) {
        stopped = request.onStdout ? request.onStdout(chunk) === false : !stdout.push(chunk);
        if (stopped) {
          child.kill();
          break;
        }
      }
    } finally {
      outcome = await child.finish();
    }
    if (timeout.signal.aborted) {
      throw new ToolError("TIMEOUT", `git ${request.args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s`);
    }
    return { code: outcome.code ?? -1, stdout: stdout.bytes(), stderr: outcome.stderr, stopped };
  } finally {
    clearTimeout(timer);
  }
}

/** Collects chunks up to a bound. */
class ByteCollector {
  readonly #parts: Uint8Array[] = [];
  #size = 0;
  constructor(readonly limit: number) {}

  /** Keeps what fits of `chunk`; false once the bound is reached. */
  push(chunk: Uint8Array): boolean {
    const part = chunk.subarray(0, this.limit - this.#size);
    this.#parts.push(part);
    this.#size += part.length;
    return this.#size < this.limit;
  }

  bytes(): Uint8Array {
    return joinBytes(this.#parts);
  }
}

const BAD_REVISION = [
  /unknown revision or path not in the working tree/,
  /bad revision/,
  /ambiguous argument/,
  /Needed a single revision/,
  /invalid object name/i,
  /not a valid object name/i,
  /bad object/,
  /no such ref/,
  /not a valid (revision|ref|commit)/i,
  /invalid upstream|no upstream configured/,
];

/** git's own message: the `fatal:`/`error:` lines of stderr, joined. */
export function gitMessage(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter((line) => line.length > 0);
  const fatal = lines.filter((line) => /^(fatal|error):/.test(line));
  return (fatal.length > 0 ? fatal : lines).join("; ").replace(/^(fatal|error):\s*/, "") || "git failed";
}

/**
 * The ToolError for a failed run: NOT_A_GIT_REPO, INVALID_ARGUMENT for a
 * bad revision (with git's message), GIT_FAILED otherwise (stderr excerpt in details).
 *
 * @example
 * ```ts
 * declare const launch: GitLaunch;
 * const run = await runGit(launch, { cwd: "/repo", args: ["log"] });
 * if (run.code !== 0) throw gitFailure(run, "log");
 * ```
 */
export function gitFailure(run: GitRun, command: string): ToolError {
  const message = gitMessage(run.stderr);
  const details = { command, exit_code: run.code, stderr: run.stderr };
  if (/not a git repository/i.test(run.stderr)) {
    return new ToolError("NOT_A_GIT_REPO", message, { details });
  }
  if (BAD_REVISION.some((pattern) => pattern.test(run.stderr))) {
    return new ToolError("INVALID_ARGUMENT", message, {
      hint: "Check the revision with git_log; ranges look like A..B.",
      details: { ...details, field: "rev" },
    });
  }
  if (/dubious ownership/.test(run.stderr)) {
    return new ToolError("GIT_FAILED", message, {
      hint:
        "The repository is owned by another user; mark it safe with `git config --global --add safe.directory <dir>`.",
      details,
    });
  }
  return new ToolError("GIT_FAILED", `git ${command} failed: ${message}`, { details });
}
