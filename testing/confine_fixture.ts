/** The confinement attack table and its tree (src/workspace/confine_test.ts, src/workspace/workspace_test.ts). */
import * as path from "node:path";
import { assert, assertThrows } from "./assert.ts";
import { ToolError } from "../src/errors.ts";

/**
 * A workspace with an outside sibling, symlinks of every kind and a loop.
 * @example
 * ```ts
 * const { root, outside, cleanup } = await confineFixture();
 * ```
 */
export async function confineFixture(): Promise<{ root: string; outside: string; cleanup(): Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "confine-" }));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await Deno.mkdir(path.join(root, "src", "deep"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(path.join(root, "src", "a.ts"), "a");
  await Deno.writeTextFile(path.join(outside, "secret.txt"), "secret");
  await Deno.symlink(path.join(outside, "secret.txt"), path.join(root, "file-out"));
  await Deno.symlink(outside, path.join(root, "dir-out"));
  await Deno.symlink("../outside", path.join(root, "rel-dir-out"));
  await Deno.symlink("file-out", path.join(root, "chain-1"));
  await Deno.symlink("chain-1", path.join(root, "chain-2"));
  await Deno.symlink("src/a.ts", path.join(root, "link-in"));
  await Deno.symlink("src", path.join(root, "dir-in"));
  await Deno.symlink("loop-b", path.join(root, "loop-a"));
  await Deno.symlink("loop-a", path.join(root, "loop-b"));
  await Deno.symlink(path.join(outside, "missing.txt"), path.join(root, "dangling-out"));
  await Deno.symlink("src/missing.txt", path.join(root, "dangling-in"));
  await Deno.symlink("/proc/self/root" + outside, path.join(root, "proc-root"));
  await Deno.symlink("/proc/self/cwd", path.join(root, "proc-cwd"));
  await Deno.symlink(root, path.join(base, "ws-alias"));
  return { root, outside, cleanup: () => Deno.remove(base, { recursive: true }) };
}

/** Every static escape, with the code it is refused with. */
export const REFUSED: [string, string, { allowMissing?: boolean }?][] = [
  ["..", "PATH_OUTSIDE_WORKSPACE"],
  ["../outside/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["../ws/src/a.ts", "PATH_OUTSIDE_WORKSPACE"],
  ["src/../../outside/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["src/deep/../../../outside", "PATH_OUTSIDE_WORKSPACE"],
  ["./../ws/../outside", "PATH_OUTSIDE_WORKSPACE"],
  ["/etc/passwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/", "PATH_OUTSIDE_WORKSPACE"],
  ["file-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["rel-dir-out/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["chain-2", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-root", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-root/secret.txt", "PATH_OUTSIDE_WORKSPACE"],
  ["proc-cwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/proc/self/root/etc/passwd", "PATH_OUTSIDE_WORKSPACE"],
  ["/proc/self/cwd/x", "PATH_OUTSIDE_WORKSPACE"],
  ["dir-out/new-file.txt", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dir-out/new/deeper.txt", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dangling-out", "PATH_OUTSIDE_WORKSPACE", { allowMissing: true }],
  ["dangling-out", "PATH_OUTSIDE_WORKSPACE"],
  ["dangling-in", "INVALID_ARGUMENT", { allowMissing: true }],
  ["loop-a", "INVALID_ARGUMENT"],
  ["loop-a/x", "INVALID_ARGUMENT", { allowMissing: true }],
  ["src/a.ts/x", "NOT_A_DIRECTORY"],
  ["a\0b", "INVALID_ARGUMENT"],
  ["src/a.ts\0", "INVALID_ARGUMENT"],
  ["", "INVALID_ARGUMENT"],
  ["x".repeat(256), "INVALID_ARGUMENT"],
  [("d/").repeat(2100), "INVALID_ARGUMENT"],
  ["missing.txt", "NOT_FOUND"],
  ["src/missing/deeper.txt", "NOT_FOUND"],
];

/**
 * The code `fn` throws (a ToolError's).
 * @example
 * ```ts
 * import { ToolError } from "../src/errors.ts";
 * codeOf(() => { throw new ToolError("NOT_FOUND", "x"); }); // "NOT_FOUND"
 * ```
 */
export function codeOf(fn: () => unknown): string {
  const error = assertThrows(fn);
  assert(error instanceof ToolError, `expected ToolError, got ${error}`);
  return error.code;
}
