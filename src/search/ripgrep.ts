import { decodeBytes } from "../text/utf8.ts";
import { ToolError } from "../errors.ts";
import type { Spawner } from "../os/spawn_request.ts";
import type { Reactor } from "../os/reactor.ts";
import { type PipedChild, type PipedOutcome, startPipedChild } from "../os/piped_child.ts";

/** Flags every rg run starts with: no config file, no global excludes, no symlink following. */
export const RG_BASE_ARGS: readonly string[] = ["--no-config", "--no-ignore-global", "--no-follow"];

/** How many bytes of rg's stderr are kept for error messages. */
export const RG_STDERR_KEEP_BYTES = 16 * 1024;

/** Unread stdout bytes at which reading pauses until the consumer catches up (a slow consumer slows rg). */
export const RG_BUFFERED_BYTES = 4 * 1024 * 1024;

/** How rg is started: the binary, the spawner and the reactor its pipes are read through. */
export interface RipgrepLaunch {
  rgPath: string;
  rgFd?: number;
  spawner: Spawner;
  reactor: Reactor;
  /** Whether the spawner confines rg's reads to the workspace by the kernel (Landlock). */
  confined: boolean;
}

/** What to run. */
export interface RipgrepRequest {
  /** Arguments after RG_BASE_ARGS; paths in them are relative to `cwd`. */
  args: readonly string[];
  /** A directory handle's `childCwd()` (Linux: `/proc/self/fd/<dir>`, the fd's very directory), open until spawned. */
  cwd: string;
  signal?: AbortSignal;
}

/** How a run ended: rg's exit code is 0 found, 1 nothing found, 2 error; null when it was killed. */
export type RipgrepOutcome = PipedOutcome;

/** A running rg. */
export interface RipgrepProcess extends PipedChild {
  readonly confined: boolean;
}

/**
 * Starts rg in `request.cwd` with an empty environment (no RIPGREP_CONFIG_PATH or HOME); disposing kills and reaps it.
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
    const message = `the bundled ripgrep cannot be started (${launch.rgPath}): ${(error as Error).message}`;
    throw new ToolError("INTERNAL", message, {
      hint: "server_info.runtime.ripgrep shows where rg was expected; reinstall or rebuild the server.",
      cause: error,
    });
  }
}

/** rg error lines kept as warnings. */
export const RG_MAX_WARNINGS = 20;

/**
 * rg's stderr as at most RG_MAX_WARNINGS warnings, paths (`./x`, or the searched file's `name`) rebased on `prefix`.
 * @example
 * ```ts
 * rgWarnings("rg: ./x: Permission denied (os error 13)\n", "src/"); // ["rg: src/x: Permission denied ..."]
 * ```
 */
export function rgWarnings(stderr: string, prefix: string, name = "."): string[] {
  return stderr.split("\n").map((line) => line.trim()).filter(Boolean).slice(0, RG_MAX_WARNINGS).map((line) =>
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
 * @example
 * ```ts
 * decodeRgData({ bytes: "YWL/" }); // { text: "ab\uFFFD", lossy: true }
 * ```
 */
export function decodeRgData(data: RgData): ReturnType<typeof decodeBytes> {
  if ("text" in data) return { text: data.text, lossy: false };
  return decodeBytes(Uint8Array.from(atob(data.bytes), (char) => char.charCodeAt(0)));
}
