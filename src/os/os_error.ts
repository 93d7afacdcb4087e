/**
 * The one error type of a failed OS call: the Deno error class for its
 * errno (NotFound, PermissionDenied, FilesystemLoop, …), so callers and
 * errors.ts's `fromOsError` map it like any Deno file error, with the errno
 * kept as `errno`.
 *
 * @example
 * ```ts
 * const error = osError('openat "a.txt"', 2);
 * error instanceof Deno.errors.NotFound; // true
 * errnoOf(error); // 2
 * ```
 */
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
 * The Deno error for a failed call, e.g. `NotFound: openat "a.txt": No such file or directory (os error 2)`.
 *
 * @example
 * ```ts
 * import { cString, errno, libc } from "./libc.ts";
 *
 * declare const dirFd: number;
 * const name = "build";
 * if (libc().mkdirat(dirFd, cString(name), 0o777) !== 0) throw osError(`mkdirat ${JSON.stringify(name)}`, errno());
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
