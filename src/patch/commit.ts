/**
 * Installs planned changes all or nothing, as a transaction of PHASES acting only through pinned directory handles
 * (pinned_dirs.ts): every step after pinning is an *at call on a pinned fd, so a directory swapped for a symlink after
 * planning can fail the commit but never redirect it outside the workspace (docs/confinement.md). Files replaced or
 * deleted are flocked, so a concurrent writer doing the same waits. A failed phase rolls the undo journal (journal.ts)
 * back newest first: backups renamed back (the original inode: bytes, mode and owner return), new files, temp files
 * and directories removed.
 */
import * as path from "node:path";
import { eachLimited } from "../async/each_limited.ts";
import { PathChanged } from "../workspace/confine.ts";
import { type Handle, sameObject } from "../workspace/handle.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { type Change, sameBytes } from "./change.ts";
import { commitFailure, conflictError, directoryError, labelled, lockTimeoutError } from "./commit_errors.ts";
import { type FsOps, HANDLE_OPS } from "./fs_ops.ts";
import { UndoJournal, unlessMissing } from "./journal.ts";
import { PinnedDirs } from "./pinned_dirs.ts";
import { type DurabilityOptions, syncStrategy } from "./durability.ts";

/** File operations in flight at once (fsyncs overlap; one file's steps stay in order). */
export const COMMIT_CONCURRENCY = 16;
const NEW_FILE_MODE = 0o666;
/** Lock-phase wait: another apply_patch releases within its commit; a longer hold (`flock FILE sleep`) is TIMEOUT. */
export const LOCK_WAIT_MS = 10_000;

/** The phases that change the tree, in the order they must run. */
export const PHASES = ["pin", "stage", "lock", "install", "sync"] as const;

/** A phase that changes the tree. */
export type Phase = typeof PHASES[number];

type Status = Phase | "new" | "failed" | "rolled back" | "committed";

function scratchName(suffix: string): string {
  return `.workcell-${crypto.randomUUID().slice(0, 13)}.${suffix}`;
}

/**
 * One commit of a set of changes: the phases run in PHASES order (anything else throws); after a failure only rollback
 * may follow, after `sync` only cleanup. Disposing releases the locks and closes every pinned directory.
 */
export class CommitTransaction implements Disposable {
  readonly #fs: FsOps;
  readonly #active: readonly Change[];
  readonly #journal = new UndoJournal();
  readonly #dirs: PinnedDirs;
  /** The locked file of each change that replaces or deletes one; its handle holds the lock. */
  readonly #locks = new Map<Change, Handle>();
  readonly #durability: DurabilityOptions;
  #status: Status = "new";

  constructor(ws: Workspace, changes: readonly Change[], fs: FsOps = HANDLE_OPS, durability: DurabilityOptions = {}) {
    this.#fs = fs;
    this.#durability = durability;
    this.#active = changes.filter((change) => change.before !== null || change.after !== null);
    this.#dirs = new PinnedDirs(ws, fs, this.#journal);
  }

  /** Pins every change's parent directory; only a file being written gets its missing directories created. */
  pin(): Promise<void> {
    return this.#phase("pin", async () => {
      for (const change of this.#active) {
        await labelled(`preparing the directory of ${change.rel}`, () => {
          try {
            this.#dirs.touched.add(this.#dirs.pin(path.posix.dirname(change.rel), change.after !== null));
          } catch (error) {
            throw directoryError(change.rel, error);
          }
        });
      }
    });
  }

  /** Writes every new content to an exclusive temp file beside its target, with its mode, made durable. */
  stage(): Promise<void> {
    const writes = this.#active.filter((change) => change.after !== null);
    return this.#phase("stage", async () => {
      // One directory written in per file system (a mount inside the workspace is another one).
      const byDevice = new Map<number, Handle>();
      for (const change of writes) {
        const dir = this.#dirs.parentOf(change.rel);
        if (!byDevice.has(dir.stat.dev)) byDevice.set(dir.stat.dev, dir);
      }
      const syncsFileSystem = [...byDevice.values()].every((dir) => dir.syncsFileSystem);
      const strategy = syncStrategy({ files: writes.length, syncsFileSystem }, this.#durability);
      await eachLimited(
        writes,
        COMMIT_CONCURRENCY,
        (change) =>
          labelled(`writing the new content of ${change.rel}`, () => this.#writeTemp(change, strategy === "fsync")),
      );
      if (strategy === "fsync") return;
      for (const dir of byDevice.values()) {
        await labelled(
          `writing the new content of ${writes.length} files (syncing the file system of ${dir.rel})`,
          () => this.#fs.syncFileSystem(dir),
        );
      }
    });
  }

  /** Locks every file the patch replaces or deletes, in path order (two commits never deadlock). */
  lock(): Promise<void> {
    const replaced = this.#active.filter((change) => change.before !== null).sort((a, b) => a.rel < b.rel ? -1 : 1);
    return this.#phase("lock", async () => {
      for (const change of replaced) await labelled(`locking ${change.rel}`, () => this.#lock(change));
    });
  }

  /** Checks each target against what was planned and puts its new content (or its absence) in place. */
  install(): Promise<void> {
    return this.#phase("install", () =>
      eachLimited(
        this.#active,
        COMMIT_CONCURRENCY,
        (change) => labelled(`installing ${change.rel}`, () => this.#install(change)),
      ));
  }

  /** Makes the new directory entries durable. */
  sync(): Promise<void> {
    return this.#phase("sync", () =>
      eachLimited(
        [...this.#dirs.touched],
        COMMIT_CONCURRENCY,
        (dir) => labelled(`syncing ${dir.rel}`, () => this.#fs.sync(dir)),
      ));
  }

  /** Undoes everything done so far (any phase, not after cleanup); returns what could not be undone. */
  async rollback(): Promise<string[]> {
    if (this.#status === "rolled back" || this.#status === "committed") {
      throw new Error(`a commit cannot roll back once ${this.#status}`);
    }
    this.#status = "rolled back";
    const unrestored = this.#journal.rollback(this.#fs);
    for (const dir of this.#dirs.touched) {
      try {
        await this.#fs.sync(dir);
      } catch {
        // Best effort: the rollback itself already succeeded or is reported.
      }
    }
    return unrestored;
  }

  cleanup(): void {
    if (this.#status !== "sync") throw new Error(`a commit cannot be cleaned up after ${this.#status}`);
    this.#status = "committed";
    this.#releaseLocks();
    for (const { dir, name } of this.#journal.backups()) {
      try {
        this.#fs.remove(dir, name);
      } catch {
        // Past the point of no return: a stray backup is left, the patch stands.
      }
    }
  }

  [Symbol.dispose](): void {
    this.#releaseLocks();
    this.#dirs[Symbol.dispose]();
  }

  /** Runs `phase` if it is the next one; a failure leaves the transaction able only to roll back. */
  async #phase(phase: Phase, body: () => Promise<void>): Promise<void> {
    const previous = PHASES[PHASES.indexOf(phase) - 1] ?? "new";
    if (this.#status !== previous) throw new Error(`a commit phase ${phase} cannot run after ${this.#status}`);
    this.#status = "failed"; // until the body returns
    await body();
    this.#status = phase;
  }

  #releaseLocks(): void {
    for (const held of this.#locks.values()) held[Symbol.dispose]();
    this.#locks.clear();
  }

  /** Writes `change`'s new content to a temp file; `sync`: fsyncs it too (else the stage syncs its file system). */
  async #writeTemp(change: Change, sync: boolean): Promise<void> {
    const { bytes, mode } = change.after!;
    const dir = this.#dirs.parentOf(change.rel);
    const temp = scratchName("tmp");
    // A replaced file's mode exactly; a new file's through the umask.
    using file = this.#fs.create(dir, temp, mode ?? NEW_FILE_MODE, mode !== null);
    this.#journal.staged(change, dir, temp);
    this.#fs.writeAll(file, bytes);
    if (sync) await this.#fs.sync(file);
  }

  /** Locks the regular file named by `change`, following no symlink there (#checkBaseline then refuses it). */
  async #lock(change: Change): Promise<void> {
    const dir = this.#dirs.parentOf(change.rel);
    let file: Handle;
    try {
      file = this.#fs.openEntry(dir, path.posix.basename(change.rel), "any");
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      // A path-based backend saw the file replaced between lstat and check (another writer's rename) in the pinned
      // directory: a conflict, not a swap towards the outside.
      if (error instanceof PathChanged && dir.isCurrent()) throw conflictError(change.rel, "was replaced");
      throw error;
    }
    if (file.stat.kind !== "file") {
      file[Symbol.dispose]();
      return;
    }
    try {
      // Through the handle: what is locked is the inode it holds.
      await this.#fs.lock(file, LOCK_WAIT_MS);
    } catch (error) {
      file[Symbol.dispose]();
      if (error instanceof Deno.errors.TimedOut) throw lockTimeoutError(change.rel, LOCK_WAIT_MS);
      throw error instanceof PathChanged ? conflictError(change.rel, "was replaced") : error;
    }
    this.#locks.set(change, file);
  }

  /** The target must still be what was planned: absent, or the locked inode holding the planned bytes and mode. */
  async #checkBaseline(change: Change, dir: Handle): Promise<void> {
    const info = unlessMissing(() => this.#fs.statEntry(dir, path.posix.basename(change.rel)));
    const conflict = (why: string) => conflictError(change.rel, why);
    if (change.before === null) {
      if (info !== null) throw conflict("was created");
      return;
    }
    if (info === null) throw conflict("was removed");
    if (info.kind !== "file") {
      throw conflict(info.kind === "symlink" ? "was replaced by a symlink" : "is no longer a regular file");
    }
    const held = this.#locks.get(change);
    if (held === undefined || !sameObject(held.stat, info)) throw conflict("was replaced");
    // Read through the locked handle, not by name: what is compared is what the lock holds.
    const now = this.#fs.restat(held);
    if (change.before.mode !== null && now.mode !== change.before.mode) throw conflict("changed mode");
    if (now.size !== change.before.bytes.length || !sameBytes(await this.#fs.readAll(held), change.before.bytes)) {
      throw conflict("changed");
    }
  }

  async #install(change: Change): Promise<void> {
    const fs = this.#fs;
    const dir = this.#dirs.parentOf(change.rel);
    const name = path.posix.basename(change.rel);
    this.#dirs.recheck(dir, change.rel);
    await this.#checkBaseline(change, dir);
    if (change.before !== null) {
      const backup = scratchName("bak");
      fs.link(dir, name, backup);
      this.#journal.record({ kind: "backup", dir, name, backup, rel: change.rel });
    }
    const temp = this.#journal.tempOf(change);
    if (temp === undefined) {
      fs.remove(dir, name);
    } else if (change.before !== null) {
      fs.rename(dir, temp, name);
      this.#journal.installed(change);
    } else {
      // link() never replaces: what appeared there since the baseline check is a conflict, not overwritten.
      try {
        fs.link(dir, temp, name);
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists) throw conflictError(change.rel, "was created");
        throw error;
      }
      this.#journal.record({ kind: "create", dir, name, rel: change.rel });
      fs.remove(dir, temp);
      this.#journal.installed(change);
    }
  }
}

/**
 * Commits `changes` atomically: every phase of a CommitTransaction in order, a rollback on any failure. Changes whose
 * before and after are both null are ignored; `durability` is for tests (durability.ts).
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * using ws = openWorkspace(await Deno.makeTempDir());
 * await commitChanges(ws, [{ rel: "a.txt", before: null, after: { bytes: new Uint8Array([104, 105]), mode: null } }]);
 * ```
 */
export async function commitChanges(
  ws: Workspace,
  changes: readonly Change[],
  fs: FsOps = HANDLE_OPS,
  durability: DurabilityOptions = {},
): Promise<void> {
  using tx = new CommitTransaction(ws, changes, fs, durability);
  try {
    for (const phase of PHASES) await tx[phase]();
  } catch (error) {
    throw commitFailure(error, await tx.rollback());
  }
  tx.cleanup();
}
