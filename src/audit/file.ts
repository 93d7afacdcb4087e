/**
 * The audit log on disk: whole lines appended with O_APPEND, one write(2)
 * each, so lines from concurrent sessions — and from other server processes
 * sharing the file — never interleave; rotated at a size limit into FILE.1 …
 * FILE.5. The server's Deno write grant covers only the workspace, and the
 * log belongs outside it, so the file is opened and written through libc
 * (FFI), like the private temp dir (src/policy/private_tmp.ts).
 *
 * Rotation by several processes at once is serialised with flock(2) on the
 * file being rotated: the first renames, the others find the name pointing
 * at a new file and reopen it. Before each line the name is checked against
 * the open file, so a log moved away or deleted (by logrotate, or by
 * another process's rotation) is followed rather than written into the void.
 *
 * @example
 * ```ts
 * import { AUDIT_LIMITS } from "./limits.ts";
 *
 * const file = new AuditFile(resolveLogPath("/var/log/workcell/audit.jsonl"), AUDIT_LIMITS.defaultMaxBytes);
 * await file.append(new TextEncoder().encode('{"event":"x"}\n'));
 * await file.close();
 * ```
 */
import * as path from "node:path";
import { O } from "../os/libc.ts";
import { closeFd } from "../os/fd.ts";
import { openAt, openDirectory } from "../os/fs_at.ts";
import { type FdStat, statAt, statFd } from "../os/fs_stat.ts";
import { lockFd, renameAt, syncFd, writeAllFd } from "../os/fs_change.ts";
import { AUDIT_LIMITS } from "./limits.ts";

/** New logs are private to the server's user. */
const LOG_MODE = 0o600;
const NEWLINE = new Uint8Array([0x0a]);

/**
 * The real path the log is written at: `file` with its symlinks resolved when it exists, else its directory's
 * (the file itself is then created there). A path that cannot be resolved is returned as given; opening it
 * then says why.
 *
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
 *
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
  /** The log's real path. */
  readonly path: string;
  readonly #maxBytes: number;
  readonly #name: string;
  #dirFd: number | null = null;
  #fd: number | null = null;
  /** A write failed part-way: the next line starts on a fresh line. */
  #torn = false;
  #tail: Promise<unknown> = Promise.resolve();

  /** `file` is an absolute real path ({@linkcode resolveLogPath}); nothing is opened yet. */
  constructor(file: string, maxBytes: number) {
    this.path = file;
    this.#name = path.basename(file);
    this.#maxBytes = maxBytes;
  }

  /** Opens the log now (creating it, mode 0600), so a start-up can say at once why it cannot; throws why. */
  open(): void {
    this.#dirFd ??= openDirectory(path.dirname(this.path));
    if (this.#fd !== null) return;
    // O_NONBLOCK: a FIFO in the log's place fails at once (ENXIO) instead of blocking the server; on a regular file
    // it changes nothing.
    const fd = openAt(this.#dirFd, this.#name, O.WRONLY | O.APPEND | O.CREAT | O.NONBLOCK, LOG_MODE);
    if (statFd(fd).kind !== "file") {
      closeFd(fd);
      throw new Error(`${this.path} is not a regular file`);
    }
    this.#fd = fd;
  }

  /** Appends `line` (one JSON line with its newline) in one write; rejects with why it could not. */
  append(line: Uint8Array): Promise<void> {
    return this.#queue(() => this.#append(line));
  }

  /** fsync(2) of what was written so far. */
  sync(): Promise<void> {
    return this.#queue(async () => {
      if (this.#fd !== null) await syncFd(this.#fd);
    });
  }

  /** Syncs and closes the file; a later append opens it again. */
  close(): Promise<void> {
    return this.#queue(async () => {
      try {
        if (this.#fd !== null) await syncFd(this.#fd);
      } finally {
        this.#closeFds();
      }
    });
  }

  #queue<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(step);
    this.#tail = run.catch(() => {});
    return run;
  }

  #closeFds(): void {
    if (this.#fd !== null) closeFd(this.#fd);
    if (this.#dirFd !== null) closeFd(this.#dirFd);
    this.#fd = this.#dirFd = null;
  }

  /** The entry the log's name points at now, or null when there is none. */
  #named(): FdStat | null {
    try {
      return statAt(this.#dirFd!, this.#name);
    } catch {
      return null;
    }
  }

  /** Drops the open file for the one the name points at (or a new one). */
  #reopen(): void {
    if (this.#fd !== null) closeFd(this.#fd);
    this.#fd = null;
    this.open();
  }

  async #append(line: Uint8Array): Promise<void> {
    this.open();
    let mine = statFd(this.#fd!);
    if (!sameFile(this.#named(), mine)) {
      this.#reopen();
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

  /** FILE.4 → FILE.5, …, FILE → FILE.1 (the oldest is replaced), then a fresh FILE; unless another process did it first. */
  async #rotate(): Promise<void> {
    const fd = this.#fd!;
    await lockFd(fd, AUDIT_LIMITS.rotationLockWaitMs);
    try {
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
      this.#fd = null;
      this.open();
    } finally {
      // Closing the old file releases the lock: a waiting process then finds the new file under the name.
      closeFd(fd);
    }
  }
}
