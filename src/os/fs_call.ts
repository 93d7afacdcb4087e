/** How fs_at.ts and fs_change.ts pass names to libc and report its failures (os_error.ts). */
import { cString, errno } from "./libc.ts";
import { osError } from "./os_error.ts";

/** A path component for a `const char*`: a string, or the raw bytes getdents64 gave (names that are not UTF-8). */
export type Name = string | Uint8Array;

/**
 * `name` NUL-terminated if one path component: an *at call given `a/b`, `..` or an absolute path would escape its fd.
 * @example
 * ```ts
 * cComponent("a.txt"); // the bytes of "a.txt\0"
 * ```
 */
export function cComponent(name: Name): Uint8Array<ArrayBuffer> {
  const bytes = typeof name === "string" ? cString(name) : Uint8Array.from([...name, 0]);
  const body = bytes.subarray(0, -1);
  const dots = body.length === 2 && body[0] === 0x2e && body[1] === 0x2e;
  if (body.includes(0x2f) || dots) throw new TypeError(`an *at call takes one path component, not ${show(name)}`);
  return bytes;
}

const decoder = new TextDecoder();

/**
 * `name` as text (raw bytes decoded, lossily where not UTF-8), for the paths a handle reports.
 * @example
 * ```ts
 * nameText(new Uint8Array([0x61, 0x62])); // "ab"
 * ```
 */
export function nameText(name: Name): string {
  return typeof name === "string" ? name : decoder.decode(name);
}

/** `name` quoted for an error message. */
export function show(name: Name): string {
  return JSON.stringify(nameText(name));
}

/**
 * The components of `relative` ("" and "." dropped), refusing `..`: what a walk beneath a directory opens one by one.
 * @example
 * ```ts
 * beneathParts("src/./lib/"); // ["src", "lib"]
 * ```
 */
export function beneathParts(relative: string): string[] {
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new TypeError(`a walk beneath a directory never climbs: ${JSON.stringify(relative)}`);
  return parts;
}

/** `result` as a number; a negative one throws the Deno error of errno, with `what` in its message. */
export function check(result: number | bigint, what: string): number {
  if (Number(result) < 0) throw osError(what, errno());
  return Number(result);
}
