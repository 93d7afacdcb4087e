/**
 * Runs git for reading: a clean environment, the safety overrides of
 * ./safety.ts, `--no-optional-locks`, literal pathspecs, a time limit, and
 * stdout streamed to a consumer that may stop it early (git is then
 * killed, so a bounded answer never costs an unbounded read).
 *
 * @example
 * const run = await runGit({ cwd: "/repo", args: ["rev-parse", "HEAD"] });
 * new TextDecoder().decode(run.stdout); // "3f2a…\n"
 */
import { ToolError } from "../errors.ts";
import { fixedConfigArgs } from "./safety.ts";

/** Longest a git run may take before it is killed and TIMEOUT is reported. */
export const GIT_TIMEOUT_MS = 60_000;
/** Bytes of stderr kept for error messages. */
export const STDERR_EXCERPT_BYTES = 4096;
/** Bytes of stdout collected when no consumer streams it. */
export const DEFAULT_COLLECT_BYTES = 8 * 1024 * 1024;

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
  /** Fed to git's stdin (closed at its end); stdin is /dev/null without it. */
  input?: ReadableStream<Uint8Array>;
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

const decoder = new TextDecoder();

/** The environment every git child gets: nothing inherited but PATH, HOME and XDG_CONFIG_HOME. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_CONFIG_COUNT: "0",
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

async function readBounded(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let kept = 0;
  for await (const chunk of stream) {
    if (kept < limit) {
      const part = chunk.subarray(0, limit - kept);
      parts.push(part);
      kept += part.length;
    }
  }
  const all = new Uint8Array(kept);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return decoder.decode(all);
}

/**
 * Runs git and streams or collects its stdout. Never throws for a non-zero
 * exit (see {@linkcode gitFailure}); throws TIMEOUT, or GIT_FAILED when git
 * cannot be started.
 *
 * @example
 * await runGit({ cwd, args: ["log", "-z"], onStdout: (chunk) => parser.push(chunk) });
 */
export async function runGit(request: GitRequest): Promise<GitRun> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("git", {
      args: gitArgs(request.args),
      cwd: request.cwd,
      env: gitEnv(request.env),
      clearEnv: true,
      stdin: request.input ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolError("GIT_FAILED", `cannot run git: ${message}`, {
      hint: "Install git and make sure it is on PATH.",
      cause: error,
    });
  }
  let stopped = false;
  let timedOut = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, GIT_TIMEOUT_MS);
  const onAbort = () => kill();
  request.signal?.addEventListener("abort", onAbort);

  // git may exit without reading all of its input (an error, or killed): a broken pipe is expected then.
  const fed = request.input?.pipeTo(child.stdin).catch(() => {});
  const stderr = readBounded(child.stderr, STDERR_EXCERPT_BYTES);
  const collected: Uint8Array[] = [];
  let collectedBytes = 0;
  const limit = request.collectBytes ?? DEFAULT_COLLECT_BYTES;
  const reader = child.stdout.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (request.onStdout) {
        if (request.onStdout(value) === false) stopped = true;
      } else {
        const part = value.subarray(0, limit - collectedBytes);
        collected.push(part);
        collectedBytes += part.length;
        if (collectedBytes >= limit) stopped = true;
      }
      if (stopped) {
        kill();
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  const [status, stderrText] = await Promise.all([child.status, stderr, fed]);
  clearTimeout(timer);
  request.signal?.removeEventListener("abort", onAbort);
  if (timedOut) {
    throw new ToolError("TIMEOUT", `git ${request.args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s`);
  }
  const stdout = new Uint8Array(collectedBytes);
  let at = 0;
  for (const part of collected) {
    stdout.set(part, at);
    at += part.length;
  }
  return { code: status.code, stdout, stderr: stderrText, stopped };
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
 * if (run.code !== 0) throw gitFailure(run, "log");
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
