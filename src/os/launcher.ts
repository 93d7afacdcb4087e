/**
 * A ~320-byte static program (launcher_x86_64.s, launcher_aarch64.s) every sandboxed child starts as: it makes the
 * system calls of a script (launcher_script.ts) read from fd 5, then execve's the command, so the command starts
 * restricted and the server's threads never are (Deno can neither fork nor run code in a spawned child, and only a
 * single-threaded process may enter a user namespace). A failing step writes its id and errno to fd 4 and exits 127;
 * a successful execve closes that close-on-exec pipe.
 */
import { LAUNCHER_CODE_HEX } from "./launcher_code.ts";
import type { LauncherScript } from "./launcher_script.ts";
import { type MaterializedExecutable, materializeExecutable, memfdWith } from "./executable.ts";
import { ERRNO, libc, strerror } from "./libc.ts";
import { spawnChild } from "./spawn.ts";
import { closeFd, makePipe, reapKilled } from "./fd.ts";
import { fdPath } from "./fs_at.ts";
import type { SpawnRequest } from "./spawn_request.ts";

/** Where the launcher's code is loaded (see the .s source). */
const CODE_ADDRESS = 0x400000n;
/** Where the script is read to: the launcher's zero-filled data segment. */
export const LAUNCHER_DATA_ADDRESS = 0x10000000n;
/** The largest script the launcher reads (its data segment): room for a maximal argv and environment. */
export const LAUNCHER_DATA_BYTES = 8 * 1024 * 1024;
/** fds the launcher finds in the child: its failure pipe and its script (a program memfd may follow at 6). */
export const LAUNCHER_FDS = { image: 3, failure: 4, script: 5, program: 6 } as const;

const ELF_HEADER_BYTES = 64;
const PROGRAM_HEADER_BYTES = 56;
const PROGRAM_HEADERS = 3;
/** Segment alignment: 64 KiB, the largest page size of either architecture (aarch64 kernels may use 64 KiB pages). */
const PAGE = 0x10000n;
const E_MACHINE: Record<string, number> = { x86_64: 62, aarch64: 183 };

/** The launcher as a static ELF for `arch`: code (R+X), a zero-filled script segment (R+W), a non-executable stack. */
export function launcherImage(arch: string = Deno.build.arch): Uint8Array<ArrayBuffer> {
  const hex = LAUNCHER_CODE_HEX[arch];
  if (hex === undefined || E_MACHINE[arch] === undefined) throw new Error(`no launcher for ${arch}`);
  const code = Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
  const codeOffset = ELF_HEADER_BYTES + PROGRAM_HEADER_BYTES * PROGRAM_HEADERS;
  const image = new Uint8Array(codeOffset + code.length);
  const view = new DataView(image.buffer);
  image.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0); // ELF, 64-bit, little-endian, version 1
  view.setUint16(16, 2, true); // ET_EXEC
  view.setUint16(18, E_MACHINE[arch], true);
  view.setUint32(20, 1, true);
  view.setBigUint64(24, CODE_ADDRESS + BigInt(codeOffset), true); // entry
  view.setBigUint64(32, BigInt(ELF_HEADER_BYTES), true); // program headers
  view.setUint16(52, ELF_HEADER_BYTES, true);
  view.setUint16(54, PROGRAM_HEADER_BYTES, true);
  view.setUint16(56, PROGRAM_HEADERS, true);
  const header = (index: number, type: number, flags: number, vaddr: bigint, fileBytes: number, memBytes: number) => {
    const at = ELF_HEADER_BYTES + PROGRAM_HEADER_BYTES * index;
    view.setUint32(at, type, true);
    view.setUint32(at + 4, flags, true);
    view.setBigUint64(at + 8, 0n, true); // file offset
    view.setBigUint64(at + 16, vaddr, true);
    view.setBigUint64(at + 24, vaddr, true);
    view.setBigUint64(at + 32, BigInt(fileBytes), true);
    view.setBigUint64(at + 40, BigInt(memBytes), true);
    view.setBigUint64(at + 48, PAGE, true);
  };
  const PT_LOAD = 1, PT_GNU_STACK = 0x6474e551, R = 4, W = 2, X = 1;
  header(0, PT_LOAD, R | X, CODE_ADDRESS, image.length, image.length);
  header(1, PT_LOAD, R | W, LAUNCHER_DATA_ADDRESS, 0, LAUNCHER_DATA_BYTES);
  header(2, PT_GNU_STACK, R | W, 0n, 0, 0);
  image.set(code, codeOffset);
  return image;
}

/** A launcher step that failed before the command started; `step` is its label. */
export class LaunchStepError extends Error {
  /** @param exec whether it was the final execve (the command itself could not be run: not found, too long) */
  constructor(readonly step: string, readonly code: number, readonly exec = false) {
    super(`${step} failed: ${strerror(code)} (errno ${code})`);
    this.name = "LaunchStepError";
  }
}

/** What the launched child gets besides its script: SpawnRequest's stdio plan, a `programFd` run as its fd 6. */
export type LaunchRequest = Pick<SpawnRequest, "env" | "cwd" | "stdio" | "ttySlave" | "programFd">;

/** Spawns children through the launcher. */
export class Launcher {
  private constructor(private readonly image: MaterializedExecutable) {}

  /** Makes the launcher executable (a sealed memfd, else a private cache file). */
  static async create(arch: string = Deno.build.arch): Promise<Launcher> {
    return new Launcher(await materializeExecutable("workcell-launcher", launcherImage(arch)));
  }

  /** Runs `script` in a child with `request`'s stdio and cwd: the pid once the command runs, or LaunchStepError. */
  async spawn(script: LauncherScript, request: LaunchRequest): Promise<number> {
    const bytes = script.serialize(LAUNCHER_DATA_ADDRESS);
    if (bytes.length > LAUNCHER_DATA_BYTES) throw new LaunchStepError("the launcher script", ERRNO.E2BIG, true);
    const scriptFd = memfdWith("workcell-script", bytes);
    let failureRead: number, failureWrite: number;
    try {
      [failureRead, failureWrite] = makePipe();
    } catch (error) {
      closeFd(scriptFd);
      throw error;
    }
    const fds: Record<number, number> = { [LAUNCHER_FDS.failure]: failureWrite, [LAUNCHER_FDS.script]: scriptFd };
    if (this.image.fd !== null) fds[LAUNCHER_FDS.image] = this.image.fd;
    if (request.programFd !== undefined) fds[LAUNCHER_FDS.program] = request.programFd;
    let pid: number;
    try {
      pid = spawnChild({
        argv: ["workcell-launcher"],
        env: request.env,
        cwd: request.cwd,
        stdio: request.stdio,
        ttySlave: request.ttySlave,
        executable: this.image.fd !== null ? fdPath(LAUNCHER_FDS.image) : this.image.path,
        fds,
      });
    } catch (error) {
      closeFd(failureRead);
      throw error;
    } finally {
      closeFd(failureWrite);
      closeFd(scriptFd);
    }
    const report = new Uint8Array(8);
    let got: number;
    try {
      got = Number(await libc().read_wait(failureRead, report, 8n));
    } finally {
      closeFd(failureRead);
    }
    if (got === 0) return pid;
    await reapKilled(pid);
    if (got !== 8) throw new LaunchStepError("the launcher", ERRNO.EIO);
    const view = new DataView(report.buffer);
    const id = view.getUint32(0, true);
    throw new LaunchStepError(script.labels[id] ?? `step ${id}`, view.getUint32(4, true), id === script.execStep);
  }
}
