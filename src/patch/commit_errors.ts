import { ToolError } from "../errors.ts";
import { PathChanged } from "../workspace/confine.ts";
import { errnoOf } from "../os/os_error.ts";
import { ERRNO } from "../os/libc.ts";

/**
 * The message of any thrown value.
 * @example
 * ```ts
 * describe(new Error("EIO")); // "EIO"
 * ```
 */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An OS error with what the commit was doing when it happened. */
export class StepError extends Error {
  constructor(readonly doing: string, readonly error: unknown) {
    super(`${doing}: ${describe(error)}`);
  }
}

/**
 * Runs `fn`; an OS error it throws becomes a StepError saying `doing` (the first label wins).
 * @example
 * ```ts
 * await labelled("locking a.txt", () => Promise.resolve()); // resolves as fn does
 * ```
 */
export async function labelled<T>(doing: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof ToolError || error instanceof StepError ? error : new StepError(doing, error);
  }
}

/**
 * PATCH_CONFLICT: the file at `rel` is no longer what was matched.
 * @example
 * ```ts
 * conflictError("a.txt", "was removed").message; // "a.txt was removed since the patch was matched; ..."
 * ```
 */
export function conflictError(rel: string, why: string): ToolError {
  return new ToolError("PATCH_CONFLICT", `${rel} ${why} since the patch was matched; nothing was written`, {
    details: { path: rel },
  });
}

/**
 * TIMEOUT: another process held the flock of the file at `rel` for longer than the commit waits.
 * @example
 * ```ts
 * lockTimeoutError("a.txt", 10_000).code; // "TIMEOUT"
 * ```
 */
export function lockTimeoutError(rel: string, waitMs: number): ToolError {
  return new ToolError(
    "TIMEOUT",
    `${rel} is locked (flock) by another process, which did not release it within ${
      waitMs / 1000
    } s; nothing was written`,
    {
      hint: "Another apply_patch, or a command holding the lock (such as `flock FILE ...`), has the file: let it " +
        "finish or stop it, then retry.",
      details: { path: rel },
    },
  );
}

/**
 * Why the parent of `rel` could not be opened by its path (other errors are returned as they are).
 * @example
 * ```ts
 * (directoryError("d/a.txt", new Deno.errors.FilesystemLoop()) as { code: string }).code; // "PATH_OUTSIDE_WORKSPACE"
 * ```
 */
export function directoryError(rel: string, error: unknown): unknown {
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError("PATCH_CONFLICT", `the directory of ${rel} vanished before install`, {
      details: { path: rel },
    });
  }
  // The walk follows no symlink: a component now a symlink or non-directory stops it, as does a path changed mid-walk.
  if (
    error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory ||
    error instanceof PathChanged
  ) {
    return new ToolError(
      "PATH_OUTSIDE_WORKSPACE",
      `a directory above ${rel} was replaced by a symlink (or a non-directory) that may lead outside the workspace; nothing was written`,
      { details: { path: rel } },
    );
  }
  return error;
}

/**
 * The error a failed commit reports: PathChanged (a directory may have been swapped for a symlink leading outside) is
 * PATH_OUTSIDE_WORKSPACE, a ToolError keeps its code, an OS error is WORKSPACE_READ_ONLY (EROFS) or PATCH_WRITE_FAILED.
 * The message says whether the rollback was complete; `details.unrestored` lists what it could not undo.
 * @example
 * ```ts
 * commitFailure(conflictError("a.txt", "changed"), ["restore a.txt: EIO"]).message; // "...ROLLBACK INCOMPLETE, ..."
 * ```
 */
export function commitFailure(error: unknown, unrestored: string[]): ToolError {
  const rolledBack = unrestored.length === 0
    ? "Every file was left as it was before the patch."
    : `ROLLBACK INCOMPLETE, check these by hand: ${unrestored.join("; ")}`;
  if (error instanceof PathChanged) {
    const message = `${error.message}, in the middle of the commit (a directory may have been swapped for a symlink ` +
      `leading outside the workspace)`;
    return new ToolError("PATH_OUTSIDE_WORKSPACE", `${message}. ${rolledBack}`, {
      details: { ...error.details, unrestored },
      cause: error,
    });
  }
  if (error instanceof ToolError) {
    // Its own hint kept: a code's default one may not fit (TIMEOUT's says to narrow the request).
    return new ToolError(error.code, `${error.message}. ${rolledBack}`, {
      hint: error.hint,
      details: { ...error.details, unrestored },
      cause: error,
    });
  }
  const doing = error instanceof StepError ? error.doing : "committing the patch";
  const cause = error instanceof StepError ? error.error : error;
  const readOnly = errnoOf(cause) === ERRNO.EROFS;
  const code = readOnly ? "WORKSPACE_READ_ONLY" : "PATCH_WRITE_FAILED";
  return new ToolError(code, `${doing} failed: ${describe(cause)}. ${rolledBack}`, {
    details: { os_error: describe(cause), unrestored },
    cause: error,
  });
}
