/**
 * The directories a commit acts in, each pinned once by an fd opened beneath
 * the workspace root one component at a time, following no symlink. A
 * missing directory is created with mkdirat in its pinned parent (journalled,
 * so a rollback removes it) and opened by name there, the same way.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/confine.ts";
 * import { FS_AT } from "./fs_ops.ts";
 * import { UndoJournal } from "./journal.ts";
 *
 * const ws = await openWorkspace(await Deno.makeTempDir());
 * using dirs = new PinnedDirs(ws, FS_AT, new UndoJournal());
 * const dir = dirs.pin("new/dir", true); // created, pinned, and marked for fsync
 * ```
 */
import * as path from "node:path";
import { ToolError } from "../errors.ts";
import type { FdStat } from "../os/fs_at.ts";
import { closeFd } from "../os/fd.ts";
import { O } from "../os/libc.ts";
import type { Workspace } from "../workspace/confine.ts";
import { directoryError } from "./commit_errors.ts";
import type { FsOps } from "./fs_ops.ts";
import type { PinnedDir, UndoJournal } from "./journal.ts";

/** How a pinned directory is opened: readable, so it can be fsynced. */
const DIR_FLAGS = O.RDONLY | O.DIRECTORY;

/**
 * The pinned directories of one commit, closed together on dispose.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/confine.ts";
 * import { FS_AT } from "./fs_ops.ts";
 * import { UndoJournal } from "./journal.ts";
 *
 * const ws = await openWorkspace(await Deno.makeTempDir());
 * using dirs = new PinnedDirs(ws, FS_AT, new UndoJournal());
 * dirs.recheck(dirs.pin(".", false), "a.txt"); // the root is still the root
 * ```
 */
export class PinnedDirs implements Disposable {
  readonly #ws: Workspace;
  readonly #fs: FsOps;
  readonly #journal: UndoJournal;
  readonly #dirs = new Map<string, PinnedDir>();
  /** Directories whose entries the commit changes: fsynced at the end (and after a rollback). */
  readonly touched = new Set<PinnedDir>();

  constructor(ws: Workspace, fs: FsOps, journal: UndoJournal) {
    this.#ws = ws;
    this.#fs = fs;
    this.#journal = journal;
  }

  /** Opens the directory `rel` (creating it, and its missing parents, when `create`), once per commit. */
  pin(rel: string, create: boolean): PinnedDir {
    const known = this.#dirs.get(rel);
    if (known !== undefined) return known;
    let fd: number;
    try {
      fd = this.#fs.openBeneath(this.#ws.fd, rel, DIR_FLAGS);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || !create || rel === ".") throw error;
      fd = this.#create(rel);
    }
    let stat: FdStat;
    try {
      stat = this.#fs.statFd(fd);
    } catch (error) {
      closeFd(fd);
      throw error;
    }
    const dir = { rel, fd, dev: stat.dev, ino: stat.ino };
    this.#dirs.set(rel, dir);
    return dir;
  }

  /** The pinned directory that holds `rel` (pinned earlier). */
  parentOf(rel: string): PinnedDir {
    return this.#dirs.get(path.posix.dirname(rel))!;
  }

  /**
   * Checks that `dir`'s path still leads to the pinned directory (nothing acts by that path either way):
   * PATCH_CONFLICT when another directory is there, PATH_OUTSIDE_WORKSPACE when a symlink is on the way.
   */
  recheck(dir: PinnedDir, rel: string): void {
    let fd: number;
    try {
      fd = this.#fs.openBeneath(this.#ws.fd, dir.rel, O.PATH | O.DIRECTORY);
    } catch (error) {
      throw directoryError(rel, error);
    }
    try {
      const stat = this.#fs.statFd(fd);
      if (stat.dev !== dir.dev || stat.ino !== dir.ino) {
        throw new ToolError("PATCH_CONFLICT", `a directory above ${rel} was replaced before install`, {
          details: { path: rel },
        });
      }
    } finally {
      closeFd(fd);
    }
  }

  /** Closes every pinned directory. */
  [Symbol.dispose](): void {
    for (const dir of this.#dirs.values()) closeFd(dir.fd);
    this.#dirs.clear();
  }

  /** Creates the missing directory `rel` in its pinned parent and opens it; returns the fd. */
  #create(rel: string): number {
    const parent = this.pin(path.posix.dirname(rel), true);
    const name = path.posix.basename(rel);
    try {
      this.#fs.mkdirAt(parent.fd, name);
      this.touched.add(parent); // the new entry must be durable too
      this.#journal.record({ kind: "mkdir", parent, name, rel });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error; // made by someone else meanwhile: use it
    }
    // Opened by name in its pinned parent: a symlink put there in between fails instead of being followed.
    return this.#fs.openAt(parent.fd, name, DIR_FLAGS);
  }
}
