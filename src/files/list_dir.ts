/** Listing to a bounded depth in tree order: symlinks reported, never descended; a page resumes after a path. */
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { z } from "../zod.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { FileKind, FileStat, Handle, RawDirEntry } from "../workspace/handle.ts";
import { fromOsError } from "../errors.ts";
import { decodeBytes } from "../text/utf8.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import { treeOrder } from "../paging/tree_order.ts";
import { firstIndex } from "../paging/first_index.ts";
import { BeneathDirs } from "./beneath_dirs.ts";

/** Entries counted past a full page before the walk stops counting (those before a cursor are always walked). */
export const LIST_DIR_WALK_LIMIT = 100_000;
/** Unreadable directories reported at most. */
export const LIST_DIR_MAX_SKIPPED = 50;

/** Where a listing resumes: after the entry with this path. */
export type DirPosition = z.infer<typeof DIR_POSITION>;

/** The shape of a resume position. */
export const DIR_POSITION = z.strictObject({ p: z.string() });

/** Options for listDir. */
export interface ListDirOptions {
  /** 1 lists the directory's own entries; n also lists n-1 levels below. */
  depth: number;
  limit: number;
  includeHidden: boolean;
  page: PageRequest<DirPosition>;
  keep: SnapshotSlot<KeptTree> | null;
}

/** An entry as the walk found it: its path, the path of its directory below the listed one, its name and kind. */
interface WalkedEntry {
  rel: string;
  dir: string;
  raw: RawDirEntry;
  name: string;
}

/** A whole walk (count exact, every name UTF-8) kept for the next pages: its entries in tree order and counts. */
export interface KeptTree {
  entries: WalkedEntry[];
  seen: number;
  hidden: number;
  skipped: DirListing["skipped"];
}

/**
 * About how many bytes a kept walk holds (UTF-16 paths and names, raw names, objects).
 * @example
 * ```ts
 * keptTreeBytes({ entries: [], seen: 0, hidden: 0, skipped: [] }); // 0
 * ```
 */
export function keptTreeBytes(tree: KeptTree): number {
  return tree.entries.reduce((sum, { rel, dir, name }) => sum + 2 * (rel.length + dir.length + name.length) + 160, 0);
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

/** A page of a listing. */
export interface DirListing {
  path: string;
  entries: DirEntry[];
  truncated: boolean;
  /** Entries within depth that passed the hidden filter; exact unless `total_exact` is false. */
  total_seen: number;
  /** False when the walk stopped counting at LIST_DIR_WALK_LIMIT. */
  total_exact: boolean;
  /** Entries left out because their names start with a dot (0 with includeHidden); a hidden directory counts once. */
  hidden: number;
  skipped: { path: string; reason: string }[];
  next_cursor: string | null;
}

/**
 * Lists the directory `input` by handles: subdirectories are opened from their parent's without following a symlink,
 * so one swapped for a symlink mid-walk is skipped, not followed outside. Throws NOT_A_DIRECTORY for a non-directory.
 * @example
 * ```ts
 * declare const ws: import("../workspace/workspace.ts").Workspace;
 * const page = { after: null, encode: (position: DirPosition) => JSON.stringify(position), maxChars: 48_000 };
 * listDir(ws, ".", { depth: 1, limit: 10, includeHidden: true, page, keep: null }).data.entries[0].name;
 * ```
 */
export function listDir(ws: Workspace, input: string, options: ListDirOptions): Paged<DirListing> {
  using top = ws.open(input, { expect: "dir" });
  try {
    const kept = options.page.after !== null ? options.keep?.get() : undefined;
    return kept !== undefined ? fromKept(ws, top, kept, options) : walkTree(ws, top, options);
  } catch (error) {
    throw fromOsError(error, top.rel);
  }
}

function walkTree(ws: Workspace, top: Handle, options: ListDirOptions): Paged<DirListing> {
  const entries: DirEntry[] = [];
  const skipped: DirListing["skipped"] = [];
  const after = options.page.after?.p ?? null;
  const wanted = options.limit + 1;
  let seen = 0;
  let hidden = 0;
  let before = 0;
  let exact = true;
  let walked: WalkedEntry[] | null = options.keep !== null && after === null ? [] : null;

  const walk = (dir: Handle, rel: string, below: string, level: number): void => {
    const children = dir.entries().map((raw) => ({ raw, ...decodeBytes(raw.name) }));
    children.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    for (const child of children) {
      if (!options.includeHidden && child.text.startsWith(".")) {
        hidden++;
        continue;
      }
      if (seen >= LIST_DIR_WALK_LIMIT && entries.length === wanted) {
        exact = false;
        return;
      }
      seen++;
      const childRel = rel === "." ? child.text : `${rel}/${child.text}`;
      walked?.push({ rel: childRel, dir: below, raw: child.raw, name: child.text });
      // A lossy name cannot be opened again by its text: such a walk is not kept.
      if (child.lossy) walked = null;
      if (after !== null && treeOrder(childRel, after) <= 0) before++;
      else if (entries.length < wanted) {
        entries.push(describe(child.raw.kind, childRel, child.text, child.lossy, statOrNull(dir, child.raw)));
      }
      if (child.raw.kind !== "dir" || level >= options.depth) continue;
      try {
        using sub = dir.openEntry(child.raw.name, "dir");
        walk(sub, childRel, below === "." ? child.text : `${below}/${child.text}`, level + 1);
      } catch (error) {
        // Unreadable, or no longer a directory (swapped for a symlink since it was listed: never followed).
        if (skipped.length < LIST_DIR_MAX_SKIPPED) {
          skipped.push({ path: childRel, reason: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  };
  walk(top, top.rel, ".", 1);

  const counts = { seen, hidden, skipped, exact };
  const page = pageOf(ws, top.rel, entries, entries.length > options.limit, before, counts, options);
  if (walked !== null && exact && page.data.next_cursor !== null) {
    options.keep!.put({ entries: walked, seen, hidden, skipped });
  }
  return page;
}

/** The page of the first `limit` entries, with where each symlink among them leads. */
function pageOf(
  ws: Workspace,
  path: string,
  entries: DirEntry[],
  more: boolean,
  before: number,
  counts: Omit<KeptTree, "entries"> & { exact: boolean },
  options: ListDirOptions,
): Paged<DirListing> {
  const shown = entries.slice(0, options.limit);
  // Where a link leads is only reported, never read: Workspace.open resolves and pins it, nothing more.
  for (const link of shown) if (link.type === "symlink") link.target = linkTarget(ws, link.path);
  return fitPage(shown, options.page, {
    more,
    start: before,
    positionAfter: (entry) => ({ p: entry.path }),
    build: (entries) => ({
      path,
      entries,
      truncated: false,
      total_seen: counts.seen,
      total_exact: counts.exact,
      hidden: counts.hidden,
      skipped: counts.skipped,
      next_cursor: null,
    }),
  });
}

/** A page from a kept walk: entries after the cursor, each stat'ed fresh through BeneathDirs, those gone left out. */
function fromKept(ws: Workspace, top: Handle, kept: KeptTree, options: ListDirOptions): Paged<DirListing> {
  const after = options.page.after!.p;
  const all = kept.entries;
  const low = firstIndex(all.length, (i) => treeOrder(all[i].rel, after) > 0);
  using dirs = new BeneathDirs(top);
  const entries: DirEntry[] = [];
  let next = low;
  for (; next < all.length && entries.length < options.limit; next++) {
    const walked = all[next];
    const dir = dirs.get(walked.dir);
    const info = dir === null ? null : statOrNull(dir, walked.raw);
    // Its kind as it is now (a directory swapped for a symlink since is one), as a new walk would say.
    if (info !== null) entries.push(describe(info.kind, walked.rel, walked.name, false, info));
  }
  const counts = { seen: kept.seen, hidden: kept.hidden, skipped: kept.skipped, exact: true };
  return pageOf(ws, top.rel, entries, next < all.length, low, counts, options);
}

/** The workspace-relative real path a symlink leads to, or null (outside, dangling, a loop). */
function linkTarget(ws: Workspace, rel: string): string | null {
  try {
    using target = ws.open(rel, { expect: "any" });
    return target.rel;
  } catch {
    return null;
  }
}

function statOrNull(dir: Handle, raw: RawDirEntry): FileStat | null {
  try {
    return dir.statEntry(raw.name);
  } catch {
    return null;
  }
}

function describe(kind: FileKind, rel: string, name: string, lossy: boolean, info: FileStat | null): DirEntry {
  const size = info?.kind === "file" ? info.size : null;
  const entry: DirEntry = { path: rel, name, type: kind, size, mtime: info?.mtime.toISOString() ?? null };
  if (lossy) entry.name_lossy = true;
  return entry;
}
