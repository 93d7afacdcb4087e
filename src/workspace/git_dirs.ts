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
 * gitDirContaining("/ws", "/ws/meta/hooks/pre-commit"); // "/ws/meta" when meta/ is a git dir
 * findGitDirs("/ws").paths;                              // ["/ws/.git"]
 */
import * as path from "node:path";
import { isInside } from "./confine.ts";
import { lstatPath } from "../os/fs_at.ts";

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
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  return match ? path.resolve(path.dirname(file), match[1]) : null;
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

/**
 * The git-dir paths that `dir` (a real directory inside `root`) holds: its
 * `.git` directory; or its `.git` file together with the git dir and common
 * dir it leads to; or `dir` itself when it is a git dir (bare). Paths outside
 * `root` are left out (nothing in the workspace can change them anyway).
 */
export function gitDirsAt(root: string, dir: string): string[] {
  if (looksLikeGitDir(dir)) return [dir];
  const dotGit = path.join(dir, ".git");
  const info = lstatPath(dotGit);
  if (info === null) return [];
  if (info.kind === "dir") return [dotGit];
  const found = new Set<string>();
  let gitDir: string | null = null;
  if (info.kind === "file") {
    found.add(dotGit);
    gitDir = gitFileTarget(dotGit);
  } else if (info.kind === "symlink") {
    gitDir = dotGit;
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
 * The git dirs of the repositories in `root`: at the root and in
 * directories down to {@linkcode GIT_DIR_SEARCH_MAX_DEPTH}, looking into at
 * most {@linkcode GIT_DIR_SEARCH_MAX_DIRS} directories. It never descends into
 * a git dir or through a symlink.
 */
export function findGitDirs(root: string): FoundGitDirs {
  const found = new Set<string>();
  let complete = true;
  let visited = 0;
  let level = [root];
  search: for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (visited++ >= GIT_DIR_SEARCH_MAX_DIRS) {
        complete = false;
        break search;
      }
      const here = gitDirsAt(root, dir);
      for (const p of here) found.add(p);
      if (here.includes(dir)) continue; // a bare repository: its insides are its own
      if (depth === GIT_DIR_SEARCH_MAX_DEPTH) {
        complete = false;
        continue;
      }
      let entries: Deno.DirEntry[];
      try {
        entries = [...Deno.readDirSync(dir)];
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.isDirectory && entry.name !== ".git") next.push(path.join(dir, entry.name));
      }
    }
    level = next;
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
 * gitDirContaining("/ws", "/ws/src/.GIT/config"); // "/ws/src/.GIT"
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
