/**
 * posix_spawnp, the server's one way to start a process: a new session, all signals (SIGPIPE too) at default, other
 * fds closed. A sandboxed child is restricted by the program it starts as (launcher.ts, sandbox-exec), not our thread.
 */
import * as path from "node:path";
import { cString, ERRNO, errno, F, HOST_OS, libc, O, SPAWN } from "./libc.ts";
import { fdOfDirectory, fdPath } from "./fs_at.ts";
import { statPath } from "./fs_stat.ts";
import { DARWIN } from "./darwin_abi.ts";
import { controllingTerminalArgv } from "./darwin.ts";
import type { Spawner, SpawnRequest } from "./spawn_request.ts";
import { errnoOf } from "./os_error.ts";

/** Bytes reserved for glibc's opaque spawn structs (80 and 336 bytes on x86_64; room to spare). */
const FILE_ACTIONS_BYTES = 256;
const SPAWN_ATTR_BYTES = 512;
/** sizeof(sigset_t) in glibc. */
const SIGSET_BYTES = 128;
const FIRST_CLOSED_FD = 3;
/** Where the child keeps a `programFd` through execve. */
const PROGRAM_FD = 3;
const ON_DARWIN = HOST_OS === "darwin";
/** The attribute flags of every child: darwin closes the fds the file actions do not name by a flag. */
const SPAWN_FLAGS = SPAWN.SETSID | SPAWN.SETSIGMASK | SPAWN.SETSIGDEF | (ON_DARWIN ? DARWIN.SPAWN.CLOEXEC_DEFAULT : 0);

/** A failed spawn with posix_spawnp's errno (isProgramNotFound & co. test any numeric `errno`, not the class). */
export class SpawnError extends Error {
  constructor(readonly errno: number, message: string) {
    super(message);
    this.name = "SpawnError";
  }
}

/** Whether a spawner's rejection means the program does not exist or cannot be executed. */
export function isProgramNotFound(error: unknown): boolean {
  const code = errnoOf(error);
  return code === ERRNO.ENOENT || code === ERRNO.EACCES;
}

/** Whether a spawner's rejection means the argument list and environment are too long for the kernel (E2BIG). */
export function isArgumentListTooLong(error: unknown): boolean {
  return errnoOf(error) === ERRNO.E2BIG;
}

/** Finds `program` on `searchPath` as execvp would (posix_spawnp would search the server's PATH, not the child's). */
export function resolveProgram(program: string, searchPath: string | undefined): string {
  if (program.includes("/")) return program;
  const found = findOnPath(program, searchPath ?? "/usr/local/bin:/usr/bin:/bin");
  if (found === null) throw new SpawnError(ERRNO.ENOENT, `${program}: command not found on PATH`);
  return found;
}

/**
 * The first executable `name` in `searchPath`'s absolute dirs (relative ones resolve against a child's cwd), or null.
 * @example
 * ```ts
 * findOnPath("git", "/usr/local/bin:/usr/bin"); // "/usr/bin/git"
 * ```
 */
export function findOnPath(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(":")) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * Whether `candidate` is an executable file, symlinks followed (statted via libc: a failing Deno stat builds an error).
 * @example
 * ```ts
 * isExecutableFile("/bin/sh"); // true
 * ```
 */
export function isExecutableFile(candidate: string): boolean {
  const info = statPath(candidate);
  return info?.kind === "file" && (info.mode & 0o111) !== 0;
}

/** A NULL-terminated array of pointers to the C strings, plus the strings it keeps alive. */
function cStringArray(items: string[]): { array: BigUint64Array<ArrayBuffer>; keep: Uint8Array[] } {
  const keep = items.map(cString);
  const array = new BigUint64Array(items.length + 1);
  keep.forEach((bytes, index) => array[index] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes))));
  return { array, keep };
}

/**
 * execve of `file` as `argv` in `env`, so a launcher leaves no process between parent and program; throws if it fails.
 * @example
 * ```ts
 * execProgram("/usr/bin/env", ["env"], { PATH: "/usr/bin:/bin" });
 * ```
 */
export function execProgram(file: string, argv: string[], env: Record<string, string>): never {
  const args = cStringArray(argv);
  const envp = cStringArray(Object.entries(env).map(([name, value]) => `${name}=${value}`));
  libc().execve(cString(file), new Uint8Array(args.array.buffer), new Uint8Array(envp.array.buffer));
  const code = errno();
  throw new SpawnError(code, `execve ${file} failed (errno ${code})`);
}

function check(result: number, what: string): void {
  if (result !== 0) throw new SpawnError(result, `${what} failed (errno ${result})`);
}

/** Spawns `request`: the pid (also its process group and session id), or a SpawnError (ENOENT: program not found). */
export function spawnChild(request: SpawnRequest): number {
  if (request.argv.length === 0) throw new SpawnError(ERRNO.ENOENT, "empty argv");
  const c = libc();
  const fds = { ...request.fds };
  let executable = request.executable;
  if (request.programFd !== undefined) {
    fds[PROGRAM_FD] = request.programFd;
    executable = fdPath(PROGRAM_FD);
  }
  let file = executable ?? resolveProgram(request.argv[0], request.env.PATH);
  let args = request.argv;
  if (ON_DARWIN && request.ttySlave !== undefined) {
    args = controllingTerminalArgv(request.ttySlave, file, args);
    file = args[0];
  }
  const program = cString(file);
  const argv = cStringArray(args);
  const envp = cStringArray(Object.entries(request.env).map(([key, value]) => `${key}=${value}`));
  const actions = new Uint8Array(FILE_ACTIONS_BYTES);
  const attr = new Uint8Array(SPAWN_ATTR_BYTES);
  const emptySet = new Uint8Array(SIGSET_BYTES);
  const fullSet = new Uint8Array(SIGSET_BYTES);
  const cwd = cString(request.cwd);
  check(c.posix_spawn_file_actions_init(actions), "posix_spawn_file_actions_init");
  check(c.posix_spawnattr_init(attr), "posix_spawnattr_init");
  let passed: ReturnType<typeof passedFds> | null = null;
  try {
    passed = passedFds(fds);
    c.sigemptyset(emptySet);
    c.sigfillset(fullSet);
    check(c.posix_spawnattr_setflags(attr, SPAWN_FLAGS), "setflags");
    check(c.posix_spawnattr_setsigmask(attr, emptySet), "setsigmask");
    check(c.posix_spawnattr_setsigdefault(attr, fullSet), "setsigdefault");
    // fchdir into a pinned directory's fd: no path is resolved in the child (on darwin there is none to resolve).
    const dirFd = fdOfDirectory(request.cwd);
    if (dirFd === null) check(c.posix_spawn_file_actions_addchdir_np(actions, cwd), "addchdir");
    else check(c.posix_spawn_file_actions_addfchdir_np(actions, dirFd), "addfchdir");
    if (request.ttySlave !== undefined) {
      // Opened after setsid without O_NOCTTY: the slave becomes the controlling terminal.
      const slave = cString(request.ttySlave);
      check(c.posix_spawn_file_actions_addopen(actions, 0, slave, O.RDWR, 0), "addopen");
      check(c.posix_spawn_file_actions_adddup2(actions, 0, 1), "adddup2");
      check(c.posix_spawn_file_actions_adddup2(actions, 0, 2), "adddup2");
    } else {
      const { stdin, stdout, stderr } = request.stdio;
      check(c.posix_spawn_file_actions_adddup2(actions, stdin, 0), "adddup2");
      check(c.posix_spawn_file_actions_adddup2(actions, stdout, 1), "adddup2");
      check(c.posix_spawn_file_actions_adddup2(actions, stderr, 2), "adddup2");
    }
    let firstClosed = FIRST_CLOSED_FD;
    for (const { target, source } of passed.fds) {
      // dup2 drops close-on-exec (no file action can set it), so the child inherits these fds.
      check(c.posix_spawn_file_actions_adddup2(actions, source, target), "adddup2");
      firstClosed = Math.max(firstClosed, target + 1);
    }
    if (!ON_DARWIN) check(c.posix_spawn_file_actions_addclosefrom_np(actions, firstClosed), "addclosefrom");
    const pid = new Int32Array(1);
    const result = c.posix_spawnp(pid, program, actions, attr, argv.array, envp.array);
    if (result !== 0) {
      const reason = result === ERRNO.ENOENT ? "not found (or the working directory is missing)" : `errno ${result}`;
      throw new SpawnError(result, `cannot run ${request.argv[0]}: ${reason}`);
    }
    return pid[0];
  } finally {
    c.posix_spawn_file_actions_destroy(actions);
    c.posix_spawnattr_destroy(attr);
    for (const fd of passed?.copies ?? []) c.close(fd);
  }
}

/** The lowest fd a colliding source is copied to. */
const SAFE_SOURCE_FD = 64;

/**
 * The dup2 actions that install `fds` (target → source). A source that is itself a target number is first copied
 * above them: installing another fd could overwrite it, and a dup2 onto itself would keep its close-on-exec flag.
 */
function passedFds(fds: Record<number, number>): { fds: { target: number; source: number }[]; copies: number[] } {
  const targets = new Set(Object.keys(fds).map(Number));
  const copies: number[] = [];
  const actions = Object.entries(fds).map(([target, source]) => {
    if (!targets.has(source)) return { target: Number(target), source };
    const copy = libc().fcntl(source, F.DUPFD_CLOEXEC, SAFE_SOURCE_FD);
    if (copy < 0) {
      const code = errno();
      throw new SpawnError(code, `cannot pass fd ${source} to the child (errno ${code})`);
    }
    copies.push(copy);
    return { target: Number(target), source: copy };
  });
  return { fds: actions, copies };
}

/** The spawner without any sandbox: spawnChild on the calling (main) thread. */
export const directSpawner: Spawner = (request) => Promise.try(() => spawnChild(request));
