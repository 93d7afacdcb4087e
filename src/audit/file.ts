/**
 * The audit log on disk, via libc (FFI: the Deno write grant covers only the workspace). O_APPEND and one write(2) a
 * line keep concurrent writers from interleaving; flock(2) serialises rotation; a moved or deleted log is followed.
 */
import * as path from "node:path";
import { O } from "../os/libc.ts";
import { closeFd } from "../os/fd.ts";
import { openAt, openDirectory } from "../os/fs_at.ts";
import { type FdStat, statAt, statFd } from "../os/fs_stat.ts";
import { lockFd, renameAt, syncFd, writeAllFd } from "../os/fs_change.ts";
import { SerialQueue } from "../async/serial.ts";
import { AUDIT_LIMITS } from "./limits.ts";

const LOG_MODE = 0o600;
const NEWLINE = new Uint8Array([0x0a]);

/**
 * The log's real path: `file` with symlinks resolved, else its directory's (the file is created there), else as given.
 * @example
 * ```ts
 * resolveLogPath("/tmp/../var/log/audit.jsonl"); // "/var/log/audit.jsonl"
 * ```
 */
export function resolveLogPath(file: string): string {
  try {
    return Deno.realPathSync(file);
  } catch {
    try {
      return path.join(Deno.realPathSync(path.dirname(file)), path.basename(file));
    } catch {
      return path.resolve(file);
    }
  }
}

/**
 * The name of the `index`-th rotated file beside `name` (1 is the newest).
 * @example
 * ```ts
 * rotatedName("audit.jsonl", 2); // "audit.jsonl.2"
 * ```
 */
export function rotatedName(name: string, index: number): string {
  return `${name}.${index}`;
}

function sameFile(a: FdStat | null, b: FdStat): boolean {
  return a !== null && a.ino === b.ino && a.dev === b.dev;
}

/** One log file, opened on first use and reopened after it moved; every method is safe to call concurrently. */
export class AuditFile {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #name: string;
  #dirFd: number | null = null;
  #fd: number | null = null;
  /** A write failed part-way: the next line starts on a fresh line. */
  #torn = false;
  readonly #queue = new SerialQueue();

  constructor(file: string, maxBytes: number) {
    this.path = file;
    this.#name = path.basename(file);
    this.#maxBytes = maxBytes;
  }

  /** Opens the log now (creating it, mode 0600), so a start-up can say at once why it cannot; throws why. */
  open(): void {
    this.#dirFd ??= openDirectory(path.dirname(this.path));
    if (this.#fd !== null) return;
    // O_NONBLOCK: a FIFO in the log's place fails at once (ENXIO) instead of blocking the server.
    const fd = openAt(this.#dirFd, this.#name, O.WRONLY | O.APPEND | O.CREAT | O.NONBLOCK, LOG_MODE);
    if (statFd(fd).kind !== "file") {
      closeFd(fd);
      throw new Error(`${this.path} is not a regular file`);
    }
    this.#fd = fd;
  }

  /** Appends `line` (one JSON line with its newline) in one write; rejects with why it could not. */
  append(line: Uint8Array): Promise<void> {
    return this.#queue.run(() => this.#append(line));
  }

  sync(): Promise<void> {
    return this.#queue.run(() => this.#sync());
  }

  close(): Promise<void> {
    return this.#queue.run(() => this.#sync().finally(() => this.#closeFds()));
  }

  async #sync(): Promise<void> {
    if (this.#fd !== null) await syncFd(this.#fd);
  }

  #closeFds(): void {
    if (this.#fd !== null) closeFd(this.#fd);
    if (this.#dirFd !== null) closeFd(this.#dirFd);
    this.#fd = this.#dirFd = null;
  }

  #named(): FdStat | null {
    try {
      return statAt(this.#dirFd!, this.#name);
    } catch {
      return null;
    }
  }

  async #append(line: Uint8Array): Promise<void> {
    this.open();
    let mine = statFd(this.#fd!);
    if (!sameFile(this.#named(), mine)) {
      closeFd(this.#fd!);
      this.#fd = null;
      this.open();
      mine = statFd(this.#fd!);
    }
    if (mine.size > 0 && mine.size + line.length > this.#maxBytes) await this.#rotate();
    const bytes = this.#torn ? new Uint8Array([...NEWLINE, ...line]) : line;
    try {
      writeAllFd(this.#fd!, bytes);
      this.#torn = false;
    } catch (error) {
      this.#torn = true;
      throw error;
    }
  }

  /** FILE.4 → FILE.5, …, FILE → FILE.1, then a fresh FILE; unless another process rotated it first. */
  async #rotate(): Promise<void> {
    const fd = this.#fd!;
    await lockFd(fd, AUDIT_LIMITS.rotationLockWaitMs);
    try {
      // Detached first: if a step below throws, the next append reopens the log by name, not a closed fd number.
      this.#fd = null;
      await syncFd(fd);
      if (sameFile(this.#named(), statFd(fd))) {
        for (let index = AUDIT_LIMITS.keptFiles; index >= 2; index--) {
          try {
            renameAt(this.#dirFd!, rotatedName(this.#name, index - 1), this.#dirFd!, rotatedName(this.#name, index));
          } catch (error) {
            if (!(error instanceof Deno.errors.NotFound)) throw error;
          }
        }
        renameAt(this.#dirFd!, this.#name, this.#dirFd!, rotatedName(this.#name, 1));
      }
      this.open();
    } finally {
      // Closing the old file releases the lock: a waiting process then finds the new file under the name.
      closeFd(fd);
    }
  }
}
