/**
 * The git dirs of the workspace, known by what they are rather than by
 * their name: a `.git` directory, the git dir a `.git` file points to (a
 * separate git dir, a worktree's or a submodule's), its common dir, and any
 * directory that git itself would take for a git dir (HEAD, objects/, refs/:
 * `git init --separate-git-dir=meta` makes `meta/` one).
 *
 * What lies in a git dir — hooks, config, info/attributes — is run later by
 * the user's own git, outside any sandbox. So apply_patch refuses every path
 * inside one ({@linkcode gitDirContaining}), and safe-mode commands see every
 * one found here read-only ({@linkcode findGitDirs}, bound read-only in the
 * command's mount namespace).
 *
 * Only paths inside the workspace are returned; nothing here follows a
 * symlink out of it.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace.ts";
 *
 * gitDirContaining("/ws", "/ws/meta/hooks/pre-commit"); // "/ws/meta" when meta/ is a git dir
 * using ws = openWorkspace("/ws");
 * (await findGitDirs(ws)).paths; // ["/ws/.git"]
 * ```
 */
import * as path from "node:path";
import { isInside } from "./confine.ts";
import { lstatPath } from "../os/fs_stat.ts";
import type { Handle } from "./handle.ts";
import type { Workspace } from "./workspace.ts";

/** Directories the search looks into, at most (a bound on its cost in a huge tree). */
export const GIT_DIR_SEARCH_MAX_DIRS = 2_000;
/** How deep below the workspace root the search looks for nested repositories. */
export const GIT_DIR_SEARCH_MAX_DEPTH = 4;

/**
 * Whether `dir` is a git dir as git's own test has it: a HEAD file, and
 * objects/ and refs/ directories — in its common dir when it names one (a
 * worktree's git dir). A symlinked HEAD counts, as in old repositories.
 */
export function looksLikeGitDir(dir: string): boolean {
  // Asked for every command and on every path component of a workdir: lstat without building errors.
  const head = lstatPath(path.join(dir, "HEAD"));
  if (head === null || !(head.kind === "file" || head.kind === "symlink")) return false;
  const common = commonDirOf(dir) ?? dir;
  return ["objects", "refs"].every((name) => lstatPath(path.join(common, name))?.kind === "dir");
}

/** Largest `.git` file read (a `gitdir:` line is short; anything bigger is not one). */
const GIT_FILE_MAX_BYTES = 4096;

/** The absolute git dir a `.git` file names (relative names are against the file's directory), or null. */
export function gitFileTarget(file: string): string | null {
  let text: string;
  try {
    const bytes = Deno.readFileSync(file);
    if (bytes.length > GIT_FILE_MAX_BYTES) return null;
    text = new TextDecoder().decode(bytes);
  } catch {
    return null;
  }
  return gitFileTargetOf(text, path.dirname(file));
}

/** The absolute git dir the text of a `.git` file names (relative to `dir`, the file's directory), or null. */
function gitFileTargetOf(text: string, dir: string): string | null {
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  return match ? path.resolve(dir, match[1]) : null;
}

/** The common dir a worktree's git dir names in its `commondir` file (absolute, unresolved), or null. */
export function commonDirOf(gitDir: string): string | null {
  try {
    const text = Deno.readTextFileSync(path.join(gitDir, "commondir")).trim();
    return text ? path.resolve(gitDir, text) : null;
  } catch {
    return null;
  }
}

function realInside(root: string, p: string): string | null {
  try {
    const real = Deno.realPathSync(p);
    return isInside(root, real) ? real : null;
  } catch {
    return null;
  }
}

/** The bytes of the small regular file `name` in `dir`, opened without following a symlink; null otherwise. */
async function readSmallFileAt(dir: Handle, name: string, max: number): Promise<Uint8Array | null> {
  try {
    using file = dir.openEntry(name, "any");
    if (file.stat.kind !== "file") return null;
    const buffer = new Uint8Array(max + 1);
    const n = await file.read(buffer, 0);
    return n <= max ? buffer.subarray(0, n) : null;
  } catch {
    return null;
  }
}

function kindAt(dir: Handle, name: string): string | null {
  try {
    return dir.statEntry(name).kind;
  } catch {
    return null;
  }
}

/**
 * The git-dir paths that the directory `handle` (a real path inside `root`)
 * holds: its `.git` directory; or its `.git` file together with the git dir
 * and common dir it leads to; or the directory itself when it is a git dir
 * (bare). Everything in it is looked at through the handle, following no
 * symlink, so a directory swapped meanwhile leads nowhere; paths outside
 * `root` are left out (nothing in the workspace can change them anyway).
 */
export async function gitDirsAt(root: string, handle: Handle): Promise<string[]> {
  const dir = handle.abs;
  const head = kindAt(handle, "HEAD");
  if (
    (head === "file" || head === "symlink") && kindAt(handle, "objects") === "dir" && kindAt(handle, "refs") === "dir"
  ) {
    return [dir];
  }
  const dotGit = path.join(dir, ".git");
  const kind = kindAt(handle, ".git");
  if (kind === null || kind === "other") return [];
  if (kind === "dir") return [dotGit];
  const found = new Set<string>();
  let gitDir: string | null = dotGit;
  if (kind === "file") {
    found.add(dotGit);
    const bytes = await readSmallFileAt(handle, ".git", GIT_FILE_MAX_BYTES);
    gitDir = bytes === null ? null : gitFileTargetOf(new TextDecoder().decode(bytes), dir);
  }
  const real = gitDir === null ? null : realInside(root, gitDir);
  if (real !== null && looksLikeGitDir(real)) {
    found.add(real);
    const common = commonDirOf(real);
    const commonReal = common === null ? null : realInside(root, common);
    if (commonReal !== null) found.add(commonReal);
  }
  return [...found];
}

/** What {@linkcode findGitDirs} found. */
export interface FoundGitDirs {
  /** Real paths inside the root: git dirs, common dirs and `.git` files, without duplicates or nesting. */
  paths: string[];
  /** False when the search stopped at its bounds before it had looked everywhere. */
  complete: boolean;
}

/**
 * The git dirs of the repositories in the workspace: at the root and in
 * directories down to {@linkcode GIT_DIR_SEARCH_MAX_DEPTH}, looking into at
 * most {@linkcode GIT_DIR_SEARCH_MAX_DIRS} directories. It walks by handles,
 * each directory opened beneath its parent without following a symlink, and
 * never descends into a git dir: a directory swapped for a symlink while it
 * walks is skipped, never listed.
 */
export async function findGitDirs(ws: Workspace): Promise<FoundGitDirs> {
  const found = new Set<string>();
  let complete = true;
  let visited = 0;
  let level: Handle[] = [ws.open(".", { expect: "dir" })];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for (let depth = 0; level.length > 0; depth++) {
      const next: Handle[] = [];
      for (const dir of level) {
        if (visited++ >= GIT_DIR_SEARCH_MAX_DIRS) {
          complete = false;
          break;
        }
        const here = await gitDirsAt(ws.root, dir);
        for (const p of here) found.add(p);
        if (here.includes(dir.abs)) continue; // a bare repository: its insides are its own
        if (depth === GIT_DIR_SEARCH_MAX_DEPTH) {
          complete = false;
          continue;
        }
        let entries;
        try {
          entries = dir.entries();
        } catch {
          continue;
        }
        for (const entry of entries) {
          if (entry.kind !== "dir") continue;
          let name: string;
          try {
            name = decoder.decode(entry.name);
          } catch {
            continue; // a name that is not UTF-8 could not be bound by path anyway
          }
          if (name === ".git") continue;
          try {
            next.push(dir.openEntry(name, "dir"));
          } catch {
            // replaced by a symlink or gone since the listing: skipped
          }
        }
      }
      for (const dir of level) dir[Symbol.dispose]();
      level = next;
      if (!complete) break;
    }
  } finally {
    for (const dir of level) dir[Symbol.dispose]();
  }
  return { paths: outermost([...found]), complete };
}

/** `paths` without those inside another of them (a bind of the outer one covers them). */
function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p) => !sorted.some((other) => other !== p && isInside(other, p)));
}

/**
 * The git dir that `abs` (an absolute path inside `root`, existing or not)
 * lies in or is — a component named `.git` (case-insensitively, for
 * case-folding file systems), or an existing ancestor that is a git dir —
 * or null.
 *
 * @example
 * ```ts
 * gitDirContaining("/ws", "/ws/src/.GIT/config"); // "/ws/src/.GIT"
 * ```
 */
export function gitDirContaining(root: string, abs: string): string | null {
  const parts = path.relative(root, abs).split("/").filter((part) => part.length > 0);
  let dir = root;
  if (looksLikeGitDir(dir)) return dir;
  for (const part of parts) {
    dir = path.join(dir, part);
    if (part.toLowerCase() === ".git" || looksLikeGitDir(dir)) return dir;
  }
  return null;
}
