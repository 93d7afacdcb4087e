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

/** Global safety options every git command gets before its own (with ./safety.ts's `-c` pairs). */
const GLOBAL_ARGS = ["--no-pager", "--no-optional-locks", "--literal-pathspecs"];

/** How git is started: its binary, the spawner of its sandbox and the reactor its pipes are read through. */
export interface GitLaunch {
  binary: string;
  spawner: Spawner;
  reactor: Reactor;
}

export interface GitRequest {
  cwd: string;
  /** Arguments after the global options (subcommand first). */
  args: string[];
  env?: Record<string, string>;
  /** Receives stdout as it arrives; return `false` to stop reading and kill git. Without it, stdout is collected. */
  onStdout?: (chunk: Uint8Array) => boolean | void;
  /** Bound on collected stdout without `onStdout` (default {@linkcode DEFAULT_COLLECT_BYTES}). */
  collectBytes?: number;
  signal?: AbortSignal;
  /** git's stdin: an fd (a file opened for reading) or the bytes themselves; /dev/null without it. */
  stdin?: number | Uint8Array<ArrayBuffer>;
}

export interface GitRun {
  /** Exit code (meaningless when `stopped`). */
  code: number;
  stdout: Uint8Array;
  stderr: string;
  /** The consumer (or the collect bound) stopped git before it finished. */
  stopped: boolean;
}

/** Every git child's environment: nothing inherited but PATH, HOME and XDG_CONFIG_HOME; output fully buffered. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_CONFIG_COUNT: "0",
    // On a pipe git log flushes per commit (a reactor wake-up each); nothing talks to git interactively.
    GIT_FLUSH: "0",
  };
  for (const name of ["HOME", "XDG_CONFIG_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs git for reading (clean environment, ./safety.ts overrides, a time limit), streaming or collecting stdout; a
 * consumer may stop it early (git is killed: a bounded answer never costs an unbounded read). git's sandbox
 * (policy/linux_spawners.ts) reads only the workspace, its git dirs and the system, runs only git, writes nothing and
 * opens no socket. Throws TIMEOUT, or GIT_FAILED if git cannot start, never for an exit code ({@linkcode gitFailure}).
 * @example
 * ```ts
 * declare const launch: GitLaunch;
 * const run = await runGit(launch, { cwd: "/repo", args: ["rev-parse", "HEAD"] });
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
        argv: [launch.binary, ...GLOBAL_ARGS, ...fixedConfigArgs(), ...request.args],
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
    const collectBytes = request.collectBytes ?? DEFAULT_COLLECT_BYTES;
    const collected: Uint8Array[] = [];
    let size = 0;
    let stopped = false;
    let outcome;
    try {
      for await (const chunk of child.chunks()) {
        if (request.onStdout) stopped = request.onStdout(chunk) === false;
        else {
          const part = chunk.subarray(0, collectBytes - size);
          collected.push(part);
          size += part.length;
          stopped = size >= collectBytes;
        }
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
    return { code: outcome.code ?? -1, stdout: joinBytes(collected), stderr: outcome.stderr, stopped };
  } finally {
    clearTimeout(timer);
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
 * The ToolError for a failed run: NOT_A_GIT_REPO, INVALID_ARGUMENT for a bad revision, else GIT_FAILED.
 * @example
 * ```ts
 * declare const run: GitRun;
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
