/**
 * How the file-system calls of src/os/ (fs_at.ts, fs_change.ts) pass names
 * to libc and report its failures: a name is a string or raw bytes, and a
 * negative result throws the Deno error class of errno with the C library's
 * message (src/os/os_error.ts).
 *
 * @example
 * ```ts
 * import { libc } from "./libc.ts";
 *
 * check(libc().mkdirat(-100, cName("new-dir"), 0o777), `mkdir ${show("new-dir")}`);
 * ```
 */
import { cString, errno } from "./libc.ts";
import { osError } from "./os_error.ts";

/** A path component for a `const char*`: a string, or the raw bytes getdents64 gave (names that are not UTF-8). */
export type Name = string | Uint8Array;

/** `name` NUL-terminated, for a `const char*`. */
export function cName(name: Name): Uint8Array<ArrayBuffer> {
  if (typeof name === "string") return cString(name);
  const bytes = new Uint8Array(name.length + 1);
  bytes.set(name);
  return bytes;
}

/**
 * `name` NUL-terminated, refusing anything but one path component: an *at call given `a/b`, `../x` or an
 * absolute path would reach past the directory fd it is relative to.
 *
 * @example
 * ```ts
 * cComponent("a.txt"); // the bytes of "a.txt\0"
 * ```
 */
export function cComponent(name: Name): Uint8Array<ArrayBuffer> {
  const bytes = cName(name);
  const body = bytes.subarray(0, -1);
  const dots = body.length === 2 && body[0] === 0x2e && body[1] === 0x2e;
  if (body.includes(0x2f) || dots) throw new TypeError(`an *at call takes one path component, not ${show(name)}`);
  return bytes;
}

/** `name` quoted for an error message. */
export function show(name: Name): string {
  return JSON.stringify(typeof name === "string" ? name : new TextDecoder().decode(name));
}

/** `result` as a number; a negative one throws the Deno error of errno, with `what` in its message. */
export function check(result: number | bigint, what: string): number {
  if (Number(result) < 0) throw osError(what, errno());
  return Number(result);
}
