/**
 * Runs the bundled ripgrep as a child the caller reads as it goes and can
 * end at once. rg gets an empty environment (no RIPGREP_CONFIG_PATH, no
 * HOME, so no config file and no global gitignore), never `-L`, stdin from
 * /dev/null, and its stdout arrives as raw chunks so a cap can stop it
 * mid-walk.
 *
 * rg is spawned through a {@linkcode Spawner} (its sandbox plan's launcher,
 * see ripgrep_runner.ts) as a piped child (os/piped_child.ts), with the
 * working directory a workspace handle gives for children (on Linux
 * `/proc/self/fd/<dir>`, which the kernel resolves to the very directory
 * the fd holds, not to whatever a path names at that moment). stdout stops being read while the
 * consumer has {@linkcode RG_BUFFERED_BYTES} unread, so a slow consumer
 * slows rg instead of growing memory.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * declare const launch: RipgrepLaunch; // rg's binary, its sandboxed spawner and the reactor
 * using ws = openWorkspace("/repo");
 * const src = ws.open("src", { expect: "dir" });
 * await using rg = await spawnRipgrep(launch, { args: ["--files", "-0", "--", "."], cwd: src.childCwd() });
 * src[Symbol.dispose](); // rg holds the directory as its cwd now
 * let files = 0;
 * for await (const chunk of rg.chunks()) {
 *   files += chunk.filter((byte) => byte === 0).length;
 *   if (files >= 1000) {
 *     rg.kill();
 *     break;
 *   }
 * }
 * const outcome = await rg.finish(); // { code: null, killed: true, stderr: "" } when it was cut short
 * ```
 */
import { decodeBytes, type Decoded } from "../text/utf8.ts";
import { ToolError } from "../errors.ts";
import type { Spawner } from "../os/spawn_request.ts";
import type { Reactor } from "../os/reactor.ts";
import { type PipedChild, type PipedOutcome, startPipedChild } from "../os/piped_child.ts";

/** Flags every rg run starts with: no config file, no global excludes, no symlink following. */
export const RG_BASE_ARGS: readonly string[] = ["--no-config", "--no-ignore-global", "--no-follow"];

/** How many bytes of rg's stderr are kept for error messages. */
export const RG_STDERR_KEEP_BYTES = 16 * 1024;

/** Unread stdout bytes at which reading pauses until the consumer catches up. */
export const RG_BUFFERED_BYTES = 4 * 1024 * 1024;

/** How rg is started: the binary, the spawner and the reactor its pipes are read through. */
export interface RipgrepLaunch {
  rgPath: string;
  /** The fd behind an rg path of the form `/proc/self/fd/N` (the compiled binary's memfd), else undefined. */
  rgFd?: number;
  spawner: Spawner;
  reactor: Reactor;
  /** Whether the spawner confines rg's reads to the workspace by the kernel (Landlock). */
  confined: boolean;
}

/** What to run. */
export interface RipgrepRequest {
  /** Arguments after {@linkcode RG_BASE_ARGS}; paths in them are relative to `cwd`. */
  args: readonly string[];
  /** Where rg starts: a directory handle's `childCwd()`, kept open until the spawn resolved. */
  cwd: string;
  /** Ends rg when aborted. */
  signal?: AbortSignal;
}

/** How a run ended: rg's exit code is 0 found, 1 nothing found, 2 error; null when it was killed. */
export type RipgrepOutcome = PipedOutcome;

/** A running rg. */
export interface RipgrepProcess extends PipedChild {
  /** Whether this rg runs inside the read-only sandbox (see {@linkcode RipgrepLaunch.confined}). */
  readonly confined: boolean;
}

/**
 * Starts rg with `request.args` after {@linkcode RG_BASE_ARGS} in the directory `request.cwd` names, with an
 * empty environment. Disposing the process (`await using`) kills it if needed and waits for it, so no fd, pidfd
 * or zombie is left on any path.
 *
 * @example
 * ```ts
 * declare const launch: RipgrepLaunch;
 * declare const cwd: string; // a directory handle's childCwd()
 * await using rg = await spawnRipgrep(launch, { args: ["--json", "-F", "-e", "TODO", "--", "."], cwd });
 * ```
 */
export async function spawnRipgrep(launch: RipgrepLaunch, request: RipgrepRequest): Promise<RipgrepProcess> {
  try {
    const child = await startPipedChild(launch.reactor, launch.spawner, {
      argv: [launch.rgPath, ...RG_BASE_ARGS, ...request.args],
      env: {},
      cwd: request.cwd,
      programFd: launch.rgFd,
      signal: request.signal,
    }, { bufferedBytes: RG_BUFFERED_BYTES, stderrKeepBytes: RG_STDERR_KEEP_BYTES });
    return Object.assign(child, { confined: launch.confined });
  } catch (error) {
    throw new ToolError(
      "INTERNAL",
      `the bundled ripgrep cannot be started (${launch.rgPath}): ${(error as Error).message}`,
      {
        hint: "server_info.runtime.ripgrep shows where rg was expected; reinstall or rebuild the server.",
        cause: error,
      },
    );
  }
}

/**
 * rg's stderr as at most `max` warning lines naming workspace-relative paths. rg names a path relative to the
 * directory it started in (`./sub/x`, or the searched file's `name`); `prefix` is that directory's
 * workspace-relative path with a trailing `/` ("" for the root).
 *
 * @example
 * ```ts
 * rgWarnings("rg: ./x: Permission denied (os error 13)\n", "src/", 20);
 * // ["rg: src/x: Permission denied (os error 13)"]
 * ```
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
 * ```ts
 * decodeRgData({ bytes: "YWL/" }); // { text: "ab\uFFFD", lossy: true }
 * ```
 */
export function decodeRgData(data: RgData): Decoded {
  if ("text" in data) return { text: data.text, lossy: false };
  return decodeBytes(Uint8Array.from(atob(data.bytes), (char) => char.charCodeAt(0)));
}
