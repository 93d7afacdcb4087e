import * as path from "node:path";
import type { Change } from "./change.ts";
import { describe } from "./commit_errors.ts";
import type { FsOps } from "./fs_ops.ts";
import type { Handle } from "../workspace/handle.ts";

/** A step a rollback undoes: a made directory, a file linked aside as `backup`, or a new file linked into place. */
export type Undo =
  | { kind: "mkdir"; parent: Handle; name: string; rel: string }
  | { kind: "backup"; dir: Handle; name: string; backup: string; rel: string }
  | { kind: "create"; dir: Handle; name: string; rel: string };

/** A name in a pinned directory: a temp file not yet installed, or a backup link. */
interface Entry {
  dir: Handle;
  name: string;
}

/**
 * Runs `fn`; null instead of its result when it throws NotFound (nothing there to act on).
 * @example
 * ```ts
 * unlessMissing(() => Deno.lstatSync("/no/such/path")); // null
 * ```
 */
export function unlessMissing<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return null;
  }
}

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

/** A commit's steps, recorded as each succeeds; a rollback drops temp files, then undoes the steps newest first. */
export class UndoJournal {
  readonly #steps: Undo[] = [];
  readonly #staged = new Map<Change, Entry>();

  record(step: Undo): void {
    this.#steps.push(step);
  }

  /** Records the temp file holding `change`'s new content, right after it was created. */
  staged(change: Change, dir: Handle, name: string): void {
    this.#staged.set(change, { dir, name });
  }

  tempOf(change: Change): string | undefined {
    return this.#staged.get(change)?.name;
  }

  /** `change`'s temp file is gone: renamed into place, or linked there and removed. */
  installed(change: Change): void {
    this.#staged.delete(change);
  }

  /** The backup links, to remove once the commit stands. */
  backups(): Entry[] {
    return this.#steps.flatMap((step) => step.kind === "backup" ? [{ dir: step.dir, name: step.backup }] : []);
  }

  /** Undoes everything, going on past a failure; returns what could not be undone. */
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
