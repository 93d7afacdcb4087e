/**
 * Objects known by identity while held only by path (the portable
 * backend's footing): a stat that names one object (dev, ino, birth time),
 * the lstat walk down a path, whether a path holds a given object, and the
 * two acts that change a name only once the object under it is seen to be
 * the expected one: set aside under a fresh name, and unlink. By path
 * nothing stops a directory on the way
 * being swapped for a symlink between two system calls; these acts make a
 * swap that lands between two of their steps reach only names the
 * swapped-in place does not have (docs/confinement.md).
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * Deno.writeTextFileSync(`${dir}/a.txt`, "x");
 * const seen = toStat(Deno.lstatSync(`${dir}/a.txt`));
 * unlinkIfSame(`${dir}/a.txt`, seen, "a.txt"); // removed: it was still the object seen
 * ```
 */
import * as path from "node:path";
import { statOfInfo } from "../os/fs_stat.ts";
import { PathChanged } from "./confine.ts";
import { type FileStat, type Reach, sameObject } from "./handle.ts";

/**
 * A stat with the object's birth time: without an fd holding it, an inode number can be freed and given to a new
 * object at the same path (a directory removed and made again), which dev and ino alone would take for the same.
 *
 * @example
 * ```ts
 * const checked: Checked = toStat(Deno.lstatSync("."));
 * checked.born; // milliseconds, or null where the system gives no birth time
 * ```
 */
export interface Checked extends FileStat {
  born: number | null;
}

/**
 * The identity and the stat of `info`.
 *
 * @example
 * ```ts
 * toStat(Deno.lstatSync(".")).kind; // "dir"
 * ```
 */
export function toStat(info: Deno.FileInfo): Checked {
  return { ...statOfInfo(info), born: info.birthtime?.getTime() ?? null };
}

/**
 * Whether two stats are of the same object: dev, ino and, where the system gives it, birth time.
 *
 * @example
 * ```ts
 * same(toStat(Deno.lstatSync(".")), toStat(Deno.statSync(Deno.cwd()))); // true
 * ```
 */
export function same(a: Checked, b: Checked): boolean {
  return sameObject(a, b) && a.born === b.born;
}

/**
 * lstats each of `parts` below the directory `base`: a symlink (where a directory must be, or the last
 * component when `expect` is "dir") fails with FilesystemLoop, a non-directory on the way with NotADirectory.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * Deno.mkdirSync(`${dir}/a/b`, { recursive: true });
 * walk(dir, ["a", "b"], "dir").length; // 2
 * ```
 */
export function walk(base: string, parts: readonly string[], expect: Reach): Checked[] {
  const stats: Checked[] = [];
  let at = base;
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i]);
    const stat = toStat(Deno.lstatSync(at));
    const last = i === parts.length - 1;
    if (!last || expect === "dir") {
      if (stat.kind === "symlink") throw new Deno.errors.FilesystemLoop(`${at} is a symlink`);
      if (stat.kind !== "dir") throw new Deno.errors.NotADirectory(`${at} is not a directory`);
    }
    stats.push(stat);
  }
  return stats;
}

/**
 * Whether the entry at `at` (not followed) is the object `stat` names.
 *
 * @example
 * ```ts
 * isAt("/etc/hostname", toStat(Deno.lstatSync("/etc/hostname"))); // true
 * ```
 */
export function isAt(at: string, stat: Checked): boolean {
  try {
    return same(toStat(Deno.lstatSync(at)), stat);
  } catch {
    return false;
  }
}

/**
 * Renames `at`, seen to be `expected`, to a fresh name beside it (one nothing else has, inside or outside) and
 * returns that name when the object moved is still `expected`; another object (a swap landed between the look
 * and the rename) is put back. Throws PathChanged for `rel` when the object is not, or no longer, `expected`.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * Deno.writeTextFileSync(`${dir}/a.txt`, "x");
 * const aside = setAside(`${dir}/a.txt`, toStat(Deno.lstatSync(`${dir}/a.txt`)), "a.txt");
 * Deno.renameSync(aside, `${dir}/b.txt`);
 * ```
 */
export function setAside(at: string, expected: Checked, rel: string): string {
  // Seen to be ours first: an object of the same name where a swap now leads is left untouched.
  if (!same(toStat(Deno.lstatSync(at)), expected)) throw new PathChanged(rel);
  const aside = path.join(path.dirname(at), `.workcell-${crypto.randomUUID().slice(0, 13)}.rm`);
  Deno.renameSync(at, aside);
  let moved: Checked | null = null;
  try {
    moved = toStat(Deno.lstatSync(aside));
  } catch {
    // The rename went where a swap sent it, and the swap is gone: nothing to put back from here. (Looking again
    // while it is missing widened the window in which a swap puts something else at `at`, and the put-back then
    // failed: a workspace directory was left under the fresh name.)
  }
  if (moved !== null && same(moved, expected)) return aside;
  if (moved !== null) Deno.renameSync(aside, at);
  throw new PathChanged(rel);
}

/**
 * Unlinks `at` (a file, or an empty directory) only when it is `expected`. A file never by its own name: set aside
 * first ({@linkcode setAside}), then that fresh name unlinked, for an unlink cannot be undone. A directory by rmdir
 * once seen to be `expected`: rmdir takes only an empty one, whereas a set-aside would move whole a directory swapped
 * in between the look and the rename, and not always put it back.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * Deno.mkdirSync(`${dir}/empty`);
 * unlinkIfSame(`${dir}/empty`, toStat(Deno.lstatSync(`${dir}/empty`)), "empty");
 * ```
 */
export function unlinkIfSame(at: string, expected: Checked, rel: string): void {
  if (expected.kind === "dir") {
    if (!isAt(at, expected)) throw new PathChanged(rel);
    return Deno.removeSync(at);
  }
  const aside = setAside(at, expected, rel);
  try {
    Deno.removeSync(aside);
  } catch (error) {
    try {
      Deno.renameSync(aside, at); // nothing was removed: put back
    } catch {
      // Best effort: the object stays aside under that name, in the directory it was found in.
    }
    throw error;
  }
}
