/**
 * Runs the bundled ripgrep as a child the caller reads as it goes and can
 * end at once. rg gets a clean environment (no RIPGREP_CONFIG_PATH, no
 * HOME, so no config file and no global gitignore), never `-L`, and its
 * stdout arrives as raw chunks so a cap can stop it mid-walk.
 *
 * @example
 * const rg = startRipgrep(rgPath, { args: ["--files", "-0", "--", "."], cwd: root });
 * for await (const chunk of rg.chunks()) { ...; if (enough) break; }
 * const outcome = await rg.finish();
 */
import { ToolError } from "../errors.ts";

/** Flags every rg run starts with: no config file, no global excludes, no symlink following. */
export const RG_BASE_ARGS: readonly string[] = ["--no-config", "--no-ignore-global", "--no-follow"];

/** How many bytes of rg's stderr are kept for error messages. */
export const RG_STDERR_KEEP_BYTES = 16 * 1024;

/** What to run. */
export interface RipgrepRequest {
  args: readonly string[];
  cwd: string;
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
export interface RipgrepProcess {
  /** rg's stdout as it arrives. Leaving the loop early does not end rg: call {@linkcode RipgrepProcess.kill}. */
  chunks(): AsyncIterable<Uint8Array>;
  /** Ends rg now (SIGKILL): it must not walk on after the caller has enough. */
  kill(): void;
  /** Waits for rg to exit (after the caller stopped reading or killed it). */
  finish(): Promise<RipgrepOutcome>;
}

/**
 * Starts rg with `request.args` after {@linkcode RG_BASE_ARGS}, in `request.cwd`, with an empty environment.
 *
 * @example
 * const rg = startRipgrep("/path/rg", { args: ["--json", "-F", "-e", "TODO", "--", "src"], cwd: ws.root });
 */
export function startRipgrep(rgPath: string, request: RipgrepRequest): RipgrepProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(rgPath, {
      args: [...RG_BASE_ARGS, ...request.args],
      cwd: request.cwd,
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new ToolError("INTERNAL", `the bundled ripgrep cannot be started (${rgPath}): ${(error as Error).message}`, {
      hint: "server_info.runtime.ripgrep shows where rg was expected; reinstall or rebuild the server.",
      cause: error,
    });
  }
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  };
  const onAbort = () => kill();
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) kill();

  const stderrDone = readBounded(child.stderr, RG_STDERR_KEEP_BYTES);
  const reader = child.stdout.getReader();
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await reader.cancel().catch(() => {});
  };

  return {
    async *chunks() {
      try {
        while (true) {
          const { value, done } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        if (killed) await release();
      }
    },
    kill,
    async finish() {
      if (killed) await release();
      else {
        // Drain whatever the caller did not read so rg is never blocked on a full pipe.
        while (!(await reader.read()).done) { /* discard */ }
        released = true;
      }
      const [status, stderr] = await Promise.all([child.status, stderrDone]);
      request.signal?.removeEventListener("abort", onAbort);
      return { code: killed ? null : status.code, killed, stderr: stderr };
    },
  };
}

async function readBounded(stream: ReadableStream<Uint8Array>, keep: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size >= keep) continue;
    parts.push(chunk.subarray(0, keep - size));
    size += Math.min(chunk.length, keep - size);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

/** A path or line as rg's JSON gives it: `{text}` when it is UTF-8, `{bytes}` (base64) when not. */
export type RgData = { text: string } | { bytes: string };

/** A decoded name or text, and whether bytes that are not UTF-8 were replaced with U+FFFD. */
export interface Decoded {
  text: string;
  lossy: boolean;
}

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

/**
 * Decodes bytes as UTF-8, falling back to a lossy decoding with the flag set.
 *
 * @example
 * decodeBytes(new Uint8Array([0x61, 0xff])); // { text: "a\uFFFD", lossy: true }
 */
export function decodeBytes(bytes: Uint8Array): Decoded {
  try {
    return { text: strict.decode(bytes), lossy: false };
  } catch {
    return { text: lossy.decode(bytes), lossy: true };
  }
}
