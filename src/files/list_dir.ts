/**
 * Directory listing, immediate or recursive to a bounded depth, in tree
 * order (each directory's entries sorted by name, children right after
 * their directory). Symlinks are reported as symlinks and never descended;
 * their target is given only when it resolves inside the workspace.
 *
 * @example
 * const listing = await listDir(ws, await confine(ws, "src"), { depth: 2, limit: 1000, includeHidden: false });
 */
import * as path from "node:path";
import { type ConfinedPath, isInside, toRelative, type Workspace } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";

/** Entries looked at (collected or only counted) before the walk stops counting. */
export const LIST_DIR_WALK_LIMIT = 100_000;
/** Unreadable directories reported at most. */
export const LIST_DIR_MAX_SKIPPED = 50;
/** Entries stat'ed at once. */
const STAT_CONCURRENCY = 64;

/** Options for {@linkcode listDir}. */
export interface ListDirOptions {
  /** 1 lists the directory's own entries; n also lists n-1 levels below. */
  depth: number;
  /** Maximum entries returned. */
  limit: number;
  includeHidden: boolean;
}

/** One entry. */
export interface DirEntry {
  path: string;
  name: string;
  type: "file" | "dir" | "symlink" | "other";
  /** Bytes, for regular files; null otherwise or when it cannot be read. */
  size: number | null;
  /** ISO 8601 modification time (of the link itself for symlinks). */
  mtime: string | null;
  /** For symlinks: the workspace-relative real path when it resolves inside the workspace, else null. */
  target?: string | null;
  /** Present (true) when the name is not valid UTF-8 and is shown with U+FFFD replacements. */
  name_lossy?: boolean;
}

/** A listing. */
export interface DirListing {
  path: string;
  entries: DirEntry[];
  truncated: boolean;
  /** Entries within depth that passed the hidden filter; exact unless `total_exact` is false. */
  total_seen: number;
  /** False when the walk stopped counting at {@linkcode LIST_DIR_WALK_LIMIT}. */
  total_exact: boolean;
  /** Directories that could not be read, with the reason. */
  skipped: { path: string; reason: string }[];
}

interface Pending {
  abs: string;
  rel: string;
  name: string;
  kind: DirEntry["type"];
}

function kindOf(entry: Deno.DirEntry): DirEntry["type"] {
  return entry.isSymlink ? "symlink" : entry.isDirectory ? "dir" : entry.isFile ? "file" : "other";
}

async function describe(ws: Workspace, item: Pending): Promise<DirEntry> {
  const entry: DirEntry = { path: item.rel, name: item.name, type: item.kind, size: null, mtime: null };
  try {
    const info = await Deno.lstat(item.abs);
    entry.size = info.isFile ? info.size : null;
    entry.mtime = info.mtime?.toISOString() ?? null;
  } catch (error) {
    // Deno shows names that are not UTF-8 with U+FFFD, so the lossy name names no file.
    if (error instanceof Deno.errors.NotFound && item.name.includes("\uFFFD")) entry.name_lossy = true;
  }
  if (item.kind === "symlink") {
    try {
      const real = await Deno.realPath(item.abs);
      entry.target = isInside(ws.root, real) ? toRelative(ws, real) : null;
    } catch {
      entry.target = null; // dangling or a loop
    }
  }
  return entry;
}

/**
 * Lists the directory `dir` (already confined). Throws NOT_A_DIRECTORY for anything else.
 *
 * @example
 * (await listDir(ws, await confine(ws, "."), { depth: 1, limit: 10, includeHidden: true })).entries[0].name;
 */
export async function listDir(ws: Workspace, dir: ConfinedPath, options: ListDirOptions): Promise<DirListing> {
  const info = await Deno.stat(dir.abs);
  if (!info.isDirectory) {
    throw new ToolError("NOT_A_DIRECTORY", `${dir.rel} is not a directory`, { details: { path: dir.rel } });
  }
  const collected: Pending[] = [];
  const skipped: DirListing["skipped"] = [];
  let seen = 0;
  let exact = true;

  const walk = async (abs: string, rel: string, level: number): Promise<void> => {
    let children: Deno.DirEntry[];
    try {
      children = await Array.fromAsync(Deno.readDir(abs));
    } catch (error) {
      if (level === 1) throw error;
      if (skipped.length < LIST_DIR_MAX_SKIPPED) {
        skipped.push({ path: rel, reason: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (!options.includeHidden && child.name.startsWith(".")) continue;
      if (seen >= LIST_DIR_WALK_LIMIT) {
        exact = false;
        return;
      }
      seen++;
      const childAbs = path.join(abs, child.name);
      const childRel = rel === "." ? child.name : `${rel}/${child.name}`;
      const kind = kindOf(child);
      if (collected.length < options.limit) collected.push({ abs: childAbs, rel: childRel, name: child.name, kind });
      if (kind === "dir" && level < options.depth) await walk(childAbs, childRel, level + 1);
    }
  };
  await walk(dir.abs, dir.rel, 1);

  const entries: DirEntry[] = [];
  for (let i = 0; i < collected.length; i += STAT_CONCURRENCY) {
    entries.push(...await Promise.all(collected.slice(i, i + STAT_CONCURRENCY).map((item) => describe(ws, item))));
  }
  return {
    path: dir.rel,
    entries,
    truncated: seen > entries.length || !exact,
    total_seen: seen,
    total_exact: exact,
    skipped,
  };
}
