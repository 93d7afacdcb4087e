import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { type Handle, sameObject } from "../workspace/handle.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { directoryError } from "./commit_errors.ts";
import type { FsOps } from "./fs_ops.ts";
import type { UndoJournal } from "./journal.ts";

/**
 * The directories of one commit, each opened once beneath the root one component at a time following no symlink, and
 * closed together on dispose; a missing one is created in its pinned parent (journalled, so a rollback removes it).
 */
export class PinnedDirs implements Disposable {
  readonly #root: Handle;
  readonly #fs: FsOps;
  readonly #journal: UndoJournal;
  readonly #dirs = new Map<string, Handle>();
  /** Directories whose entries the commit changes: fsynced at the end (and after a rollback). */
  readonly touched = new Set<Handle>();

  constructor(ws: Workspace, fs: FsOps, journal: UndoJournal) {
    this.#root = ws.open(".", { expect: "dir" });
    this.#fs = fs;
    this.#journal = journal;
  }

  /** Opens the directory `rel` (creating it, and its missing parents, when `create`), once per commit. */
  pin(rel: string, create: boolean): Handle {
    const known = this.#dirs.get(rel);
    if (known !== undefined) return known;
    let dir: Handle;
    try {
      dir = this.#fs.openBeneath(this.#root, rel, "dir");
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || !create || rel === ".") throw error;
      dir = this.#create(rel);
    }
    this.#dirs.set(rel, dir);
    return dir;
  }

  parentOf(rel: string): Handle {
    return this.#dirs.get(path.posix.dirname(rel))!;
  }

  /**
   * Checks that `dir`'s path still leads to the pinned directory (nothing acts by that path either way):
   * PATCH_CONFLICT when another directory is there, PATH_OUTSIDE_WORKSPACE when a symlink is on the way.
   */
  recheck(dir: Handle, rel: string): void {
    let now: Handle;
    try {
      now = this.#fs.openBeneath(this.#root, dir.rel, "dir");
    } catch (error) {
      throw directoryError(rel, error);
    }
    using _now = now;
    if (!sameObject(now.stat, dir.stat)) {
      throw new ToolError("PATCH_CONFLICT", `a directory above ${rel} was replaced before install`, {
        details: { path: rel },
      });
    }
  }

  [Symbol.dispose](): void {
    for (const dir of this.#dirs.values()) dir[Symbol.dispose]();
    this.#dirs.clear();
    this.#root[Symbol.dispose]();
  }

  #create(rel: string): Handle {
    const parent = this.pin(path.posix.dirname(rel), true);
    const name = path.posix.basename(rel);
    try {
      this.#fs.mkdir(parent, name);
      this.touched.add(parent); // the new entry must be durable too
      this.#journal.record({ kind: "mkdir", parent, name, rel });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error; // made by someone else meanwhile: use it
    }
    // Opened by name in its pinned parent: a symlink put there in between fails instead of being followed.
    return this.#fs.openEntry(parent, name, "dir");
  }
}
