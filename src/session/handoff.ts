/**
 * Hands a stdio session over to a fresh server process started in its
 * workspace. Deno fixes a process's write grant when it starts: the
 * compiled binary's `--allow-write=.` (and a source run whose workspace the
 * client's roots decide) covers the directory the process started in. When
 * the roots name another directory, this process has answered initialize
 * but cannot serve that directory under a grant that covers it exactly, so
 * it re-executes itself there: execve keeps the pid and stdin, stdout and
 * stderr, so the client still talks to one server. The session (what
 * initialize said, the roots) and the input not yet answered (the calls
 * waiting for the workspace, then the bytes of a line read halfway) travel
 * in a memfd the new process reads first.
 *
 * @example
 * ```ts
 * declare const state: HandoffState; // the choice, the session and the calls that wait for it
 * const failure = execInto(state, Deno.cwd()); // returns only when the exec failed
 * const handed = await takeHandoff(); // in the new process
 * ```
 */
import { readAllFd, readKernelFile } from "../os/fs_at.ts";
import { writeAllFd } from "../os/fs_change.ts";
import { cString, errno, libc, strerror } from "../os/libc.ts";
import type { RestoredSession } from "./info.ts";
import type { WorkspaceChoice } from "../workspace/resolve.ts";
import { LAUNCH_CWD_ENV } from "../compiled/relaunch.ts";
import { closeFd } from "../os/fd.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** The variable naming the memfd with the state, in the new process. */
export const HANDOFF_FD_ENV = "WORKCELL_HANDOFF_FD";

/** What the new process continues from. */
export interface HandoffState {
  /** The workspace the first process chose, and where from. */
  choice: WorkspaceChoice;
  session: RestoredSession;
  /** Bytes to read before stdin, base64: the waiting calls as JSON-RPC lines, then a partial line. */
  replay: string;
}

/** This process's argv, from /proc/self/cmdline (Deno does not expose its own runtime flags). */
function ownArgv(): string[] {
  return readKernelFile("/proc/self/cmdline").replace(/\0$/, "").split("\0");
}

/** A NULL-terminated array of C strings; `keep` holds the buffers the pointers point into. */
function cStringArray(strings: string[]): { array: BigUint64Array<ArrayBuffer>; keep: Uint8Array[] } {
  const keep = strings.map(cString);
  const array = new BigUint64Array(strings.length + 1);
  keep.forEach((bytes, i) => array[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes))));
  return { array, keep };
}

/**
 * Re-executes this process with `state.choice.dir` as its working directory
 * and the state in a memfd. Returns only when that failed, with why (the
 * working directory is restored and nothing else has changed).
 *
 * @example
 * ```ts
 * import type { RestoredSession } from "./info.ts";
 *
 * declare const session: RestoredSession; // what the client said at initialize
 * const failure = execInto({ choice: { dir: "/home/u/app", source: "roots" }, session, replay: "" }, "/");
 * ```
 */
export function execInto(state: HandoffState, launchCwd: string): Error {
  const here = Deno.cwd();
  let memfd = -1;
  try {
    const argv = ownArgv();
    // No MFD_CLOEXEC: the new image must inherit it.
    memfd = libc().memfd_create(cString("workcell-handoff"), 0);
    if (memfd < 0) throw new Error(`memfd_create: ${strerror(errno())}`);
    writeAllFd(memfd, new TextEncoder().encode(JSON.stringify(state)));
    const env = { ...Deno.env.toObject(), [HANDOFF_FD_ENV]: String(memfd), [LAUNCH_CWD_ENV]: launchCwd };
    const args = cStringArray(argv);
    const envp = cStringArray(Object.entries(env).map(([name, value]) => `${name}=${value}`));
    Deno.chdir(state.choice.dir);
    libc().execve(cString("/proc/self/exe"), args.array, envp.array);
    throw new Error(`execve: ${strerror(errno())}`);
  } catch (error) {
    if (memfd >= 0) closeFd(memfd);
    Deno.chdir(here);
    return error as Error;
  }
}

/**
 * The state a previous process handed over, or null; its memfd is read and closed.
 *
 * @example
 * ```ts
 * const handoff = await takeHandoff(); // null unless WORKCELL_HANDOFF_FD is set
 * ```
 */
export async function takeHandoff(): Promise<HandoffState | null> {
  const fdText = Deno.env.get(HANDOFF_FD_ENV);
  if (fdText === undefined) return null;
  Deno.env.delete(HANDOFF_FD_ENV);
  const fd = Number(fdText);
  try {
    return JSON.parse(new TextDecoder().decode(await readAllFd(fd))) as HandoffState;
  } finally {
    closeFd(fd);
  }
}

/**
 * The replay bytes: each call as a JSON-RPC request line, then `partial`.
 *
 * @example
 * ```ts
 * replayBytes([{ id: 3, request: { method: "tools/call", params: { name: "server_info" } } }], new Uint8Array());
 * ```
 */
export function replayBytes(
  calls: readonly { id: string | number; request: { method: string; params?: unknown } }[],
  partial: Uint8Array,
): Uint8Array {
  const lines = calls.map((call) => JSON.stringify({ jsonrpc: "2.0", id: call.id, ...call.request }) + "\n").join("");
  return joinBytes([new TextEncoder().encode(lines), partial]);
}
