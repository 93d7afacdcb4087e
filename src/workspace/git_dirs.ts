/**
 * The workspace's git dirs, known by what they are, not their name. Their hooks and config run later in the user's git,
 * outside any sandbox, so apply_patch refuses paths in one and safe-mode binds them read-only. Follows no symlink out.
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

/** Whether `dir` is a git dir by git's own test: HEAD (a symlink counts), objects/ and refs/ (in its common dir). */
export function looksLikeGitDir(dir: string): boolean {
  // Asked for every command and on every path component of a workdir: lstat without building errors.
  const head = lstatPath(path.join(dir, "HEAD"));
  if (head === null || !(head.kind === "file" || head.kind === "symlink")) return false;
  const common = commonDirOf(dir) ?? dir;
  return ["objects", "refs"].every((name) => lstatPath(path.join(common, name))?.kind === "dir");
}

/** Largest `.git` file read (a `gitdir:` line is short; anything bigger is not one). */
const GIT_FILE_MAX_BYTES = 4096;

const decoder = new TextDecoder();

/** The absolute git dir a `.git` file names (relative names are against the file's directory), or null. */
export function gitFileTarget(file: string): string | null {
  let text: string;
  try {
    const bytes = Deno.readFileSync(file);
    if (bytes.length > GIT_FILE_MAX_BYTES) return null;
    text = decoder.decode(bytes);
  } catch {
    return null;
  }
  return gitFileTargetOf(text, path.dirname(file));
}

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

/** The git dir `dir`'s `.git` file names, read (at most GIT_FILE_MAX_BYTES) following no symlink; else null. */
async function gitFileTargetAt(dir: Handle): Promise<string | null> {
  try {
    using file = dir.openEntry(".git", "any");
    if (file.stat.kind !== "file") return null;
    const bytes = await file.readPrefix(GIT_FILE_MAX_BYTES + 1);
    return bytes.length <= GIT_FILE_MAX_BYTES ? gitFileTargetOf(decoder.decode(bytes), dir.abs) : null;
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

/** Git-dir paths inside `root` held by directory `handle` (its `.git`, what that leads to, or itself), seen via it. */
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
    gitDir = await gitFileTargetAt(handle);
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
  /** False when the search stopped at its bounds. */
  complete: boolean;
}

/**
 * The git dirs in the workspace within the search bounds, walked by handles following no symlink, never into a git dir.
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace.ts";
 * (await findGitDirs(openWorkspace("/ws"))).paths; // ["/ws/.git"]
 * ```
 */
export async function findGitDirs(ws: Workspace): Promise<FoundGitDirs> {
  const found = new Set<string>();
  let complete = true;
  let visited = 0;
  let level: Handle[] = [ws.open(".", { expect: "dir" })];
  const strict = new TextDecoder("utf-8", { fatal: true });
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
            name = strict.decode(entry.name);
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
 * The git dir `abs` is or lies in: a `.git` component (any case, for case-folding file systems) or a git dir ancestor.
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
