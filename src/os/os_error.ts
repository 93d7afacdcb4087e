/** Failed OS calls as Deno errors, so callers and errors.ts's `fromOsError` map them like any Deno file error. */
import { ERRNO, strerror } from "./libc.ts";

const ERROR_CLASSES: Record<number, new (message: string) => Error> = {
  [ERRNO.ENOENT]: Deno.errors.NotFound,
  [ERRNO.EACCES]: Deno.errors.PermissionDenied,
  [ERRNO.EPERM]: Deno.errors.PermissionDenied,
  [ERRNO.EEXIST]: Deno.errors.AlreadyExists,
  [ERRNO.ELOOP]: Deno.errors.FilesystemLoop,
  [ERRNO.ENOTDIR]: Deno.errors.NotADirectory,
  [ERRNO.EISDIR]: Deno.errors.IsADirectory,
  [ERRNO.EBUSY]: Deno.errors.Busy,
  [ERRNO.EINTR]: Deno.errors.Interrupted,
};

/**
 * Errno `code` as its Deno error class (NotFound, PermissionDenied, ...) with `errno` set, e.g. `NotFound: openat ...`.
 * @example
 * ```ts
 * osError('openat "a.txt"', 2) instanceof Deno.errors.NotFound; // true
 * ```
 */
export function osError(what: string, code: number): Error {
  const ErrorClass = ERROR_CLASSES[code] ?? Error;
  const error = new ErrorClass(`${what}: ${strerror(code)} (os error ${code})`);
  return Object.assign(error, { errno: code });
}

/** The errno a call failed with (see osError), or null. */
export function errnoOf(error: unknown): number | null {
  const code = (error as { errno?: unknown } | null)?.errno;
  return typeof code === "number" ? code : null;
}
