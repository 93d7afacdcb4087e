/**
 * The commit's undo journal, as data: every step that changed the tree is
 * recorded right after it succeeded, and a rollback undoes them newest first.
 * Temp files not yet installed are kept apart: they are removed before
 * anything else is undone.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * using dir = ws.open(".", { expect: "dir" });
 * const journal = new UndoJournal();
 * journal.record({ kind: "backup", dir, name: "a.txt", backup: ".workcell-x.bak", rel: "a.txt" });
 * journal.backups(); // [{ dir, name: ".workcell-x.bak" }]
 * ```
 */
import * as path from "node:path";
import type { Change } from "./change.ts";
import { describe } from "./commit_errors.ts";
import type { FsOps } from "./fs_ops.ts";
import type { Handle } from "../workspace/handle.ts";

/** A step of the commit that a rollback undoes. */
export type Undo =
  /** The directory `name` was created in `parent` (`rel` is its workspace path): removed again. */
  | { kind: "mkdir"; parent: Handle; name: string; rel: string }
  /** The file `name` was hard-linked aside as `backup` before being replaced or removed: renamed back. */
  | { kind: "backup"; dir: Handle; name: string; backup: string; rel: string }
  /** A new file was linked into place as `name`: removed. */
  | { kind: "create"; dir: Handle; name: string; rel: string };

/** A temp file written and not yet installed. */
interface Staged {
  dir: Handle;
  name: string;
}

/** Runs `fn`, treating a missing file as done. */
function unlessMissing(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** What undoing `step` is called in a report of what could not be undone. */
function label(step: Undo): string {
  if (step.kind === "mkdir") return `remove directory ${step.rel}`;
  return step.kind === "backup" ? `restore ${step.rel}` : `remove ${step.rel}`;
}

function undo(step: Undo, fs: FsOps): void {
  if (step.kind === "mkdir") unlessMissing(() => fs.remove(step.parent, step.name, true));
  else if (step.kind === "create") unlessMissing(() => fs.remove(step.dir, step.name));
  else {
    fs.rename(step.dir, step.backup, step.name);
    unlessMissing(() => fs.remove(step.dir, step.backup)); // rename between two links of one inode is a no-op
  }
}

/**
 * What a commit has done so far, and how to take it back.
 *
 * @example
 * ```ts
 * import { HANDLE_OPS } from "./fs_ops.ts";
 *
 * new UndoJournal().rollback(HANDLE_OPS); // [] (nothing to undo, nothing left undone)
 * ```
 */
export class UndoJournal {
  readonly #steps: Undo[] = [];
  readonly #staged = new Map<Change, Staged>();

  /** Records a step that succeeded. */
  record(step: Undo): void {
    this.#steps.push(step);
  }

  /** Records the temp file holding `change`'s new content, right after it was created. */
  staged(change: Change, dir: Handle, name: string): void {
    this.#staged.set(change, { dir, name });
  }

  /** The temp file of `change`, if it has one that is not installed yet. */
  tempOf(change: Change): string | undefined {
    return this.#staged.get(change)?.name;
  }

  /** `change`'s temp file is gone: renamed into place, or linked there and removed. */
  installed(change: Change): void {
    this.#staged.delete(change);
  }

  /** The backup links, to remove once the commit stands. */
  backups(): { dir: Handle; name: string }[] {
    return this.#steps.flatMap((step) => step.kind === "backup" ? [{ dir: step.dir, name: step.backup }] : []);
  }

  /**
   * Removes the temp files, then undoes the steps newest first, going on past a failure; returns what could
   * not be undone. The journal is empty afterwards.
   */
  rollback(fs: FsOps): string[] {
    const unrestored: string[] = [];
    for (const { dir, name } of this.#staged.values()) {
      try {
        unlessMissing(() => fs.remove(dir, name));
      } catch (error) {
        unrestored.push(`remove temp file ${path.posix.join(dir.rel, name)}: ${describe(error)}`);
      }
    }
    this.#staged.clear();
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        undo(step, fs);
      } catch (error) {
        unrestored.push(`${label(step)}: ${describe(error)}`);
      }
    }
    return unrestored;
  }
}
