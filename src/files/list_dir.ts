/**
 * Directory listing, immediate or recursive to a bounded depth, in tree
 * order (each directory's entries sorted by name, children right after
 * their directory). Symlinks are reported as symlinks and never descended;
 * their target is given only when it resolves inside the workspace.
 *
 * Pages resume after the last entry's path in tree order, so an entry is
 * listed once even when others come and go between pages. A page ends at
 * `limit` entries or where its JSON would pass `page.maxChars`. A first
 * page that walked the whole tree (its count exact, every name UTF-8) and
 * does not hold every entry keeps the walk (`keep`: the session's
 * src/paging/snapshots.ts); the pages after it are read from there, each
 * entry's lstat taken fresh and an entry gone meanwhile left out, as a new
 * walk would. Where it is no longer kept, a page walks again.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * const { data } = listDir(ws, "src", {
 *   depth: 2,
 *   limit: 200,
 *   includeHidden: false,
 *   page: { after: null, encode: (position) => JSON.stringify(position), maxChars: 48_000 },
 *   keep: null,
 * });
 * ```
 */
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { z } from "../zod.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { FileStat, Handle, RawDirEntry } from "../workspace/handle.ts";
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
export type DirPosition = { p: string };

/** The shape of a resume position. */
export const DIR_POSITION = z.strictObject({ p: z.string() });

/** Options for {@linkcode listDir}. */
export interface ListDirOptions {
  /** 1 lists the directory's own entries; n also lists n-1 levels below. */
  depth: number;
  /** Most entries in a page. */
  limit: number;
  includeHidden: boolean;
  page: PageRequest<DirPosition>;
  /** Keeps a first page's whole walk for its next pages; null to walk for every page. */
  keep: SnapshotSlot<KeptTree> | null;
}

/** An entry as the walk found it: its path, the path of its directory below the listed one, its name and kind. */
interface WalkedEntry {
  rel: string;
  dir: string;
  raw: RawDirEntry;
  name: string;
}

/** A whole walk kept for the next pages: every entry in tree order, and the walk's counts. */
export interface KeptTree {
  entries: WalkedEntry[];
  seen: number;
  hidden: number;
  skipped: DirListing["skipped"];
}

/**
 * About how many bytes a kept walk holds (UTF-16 paths and names, raw names, objects).
 *
 * @example
 * ```ts
 * keptTreeBytes({ entries: [], seen: 0, hidden: 0, skipped: [] }); // 0
 * ```
 */
export function keptTreeBytes(tree: KeptTree): number {
  let bytes = 0;
  for (const entry of tree.entries) bytes += 2 * (entry.rel.length + entry.dir.length + entry.name.length) + 160;
  return bytes;
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
  /** More entries follow this page. */
  truncated: boolean;
  /** Entries within depth that passed the hidden filter; exact unless `total_exact` is false. */
  total_seen: number;
  /** False when the walk stopped counting at {@linkcode LIST_DIR_WALK_LIMIT}. */
  total_exact: boolean;
  /** Entries left out because their names start with a dot (0 with includeHidden); a hidden directory counts once. */
  hidden: number;
  /** Directories that could not be read, with the reason. */
  skipped: { path: string; reason: string }[];
  /** Resumes after this page; null at the end. */
  next_cursor: string | null;
}

/**
 * Lists the directory `input` of the workspace. The walk goes by handles: the directory is opened by
 * Workspace.open, each entry is stat'ed through its directory's handle, and each subdirectory is opened from its
 * parent's handle without following a symlink, so a directory swapped for a symlink mid-walk is skipped rather
 * than followed outside. Throws NOT_A_DIRECTORY for anything but a directory.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
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
  const topRel = top.rel;
  const entries: DirEntry[] = [];
  const links: DirEntry[] = [];
  const skipped: DirListing["skipped"] = [];
  const after = options.page.after?.p ?? null;
  // One entry more than a page tells that more follow.
  const wanted = options.limit + 1;
  let seen = 0;
  let hidden = 0;
  let before = 0;
  let exact = true;
  // A first page that may be kept takes every entry it walks past, to read the next pages from.
  const walked: WalkedEntry[] | null = options.keep !== null && after === null ? [] : null;
  let lossyNames = false;

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
      lossyNames ||= child.lossy;
      if (after !== null && treeOrder(childRel, after) <= 0) before++;
      else if (entries.length < wanted) {
        const entry = describe(child.raw, childRel, child.text, child.lossy, statOrNull(dir, child.raw));
        entries.push(entry);
        if (entry.type === "symlink") links.push(entry);
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
  walk(top, topRel, ".", 1);

  // Where a link leads is only reported, never read: Workspace.open resolves and pins it, nothing more.
  for (const link of links) link.target = linkTarget(ws, link.path);
  const counts = { seen, hidden, skipped, exact };
  const page = pageOf(topRel, entries, entries.length > options.limit, before, counts, options);
  // A lossy name cannot be opened again by its text: such a walk is not kept.
  if (walked !== null && exact && !lossyNames && page.data.next_cursor !== null) {
    options.keep!.put({ entries: walked, seen, hidden, skipped });
  }
  return page;
}

/** The page of `entries` (one more than `limit` when `more`) that fits, after `before` entries. */
function pageOf(
  path: string,
  entries: DirEntry[],
  more: boolean,
  before: number,
  counts: { seen: number; hidden: number; skipped: DirListing["skipped"]; exact: boolean },
  options: ListDirOptions,
): Paged<DirListing> {
  return fitPage(entries.slice(0, options.limit), options.page, {
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

/**
 * A page read from a kept walk: the entries after the cursor's path, each stat'ed fresh through its directory,
 * opened beneath the listed one without following a symlink; an entry gone since is left out.
 */
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
    if (info !== null) entries.push(describe({ ...walked.raw, kind: info.kind }, walked.rel, walked.name, false, info));
  }
  for (const link of entries) if (link.type === "symlink") link.target = linkTarget(ws, link.path);
  const counts = { seen: kept.seen, hidden: kept.hidden, skipped: kept.skipped, exact: true };
  return pageOf(top.rel, entries, next < all.length, low, counts, options);
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

/** The lstat of the entry `raw` of `dir`, or null when it is gone (removed since it was listed). */
function statOrNull(dir: Handle, raw: RawDirEntry): FileStat | null {
  try {
    return dir.statEntry(raw.name);
  } catch {
    return null;
  }
}

function describe(raw: RawDirEntry, rel: string, name: string, lossy: boolean, info: FileStat | null): DirEntry {
  const entry: DirEntry = { path: rel, name, type: raw.kind, size: null, mtime: null };
  if (lossy) entry.name_lossy = true;
  if (info !== null) {
    entry.size = info.kind === "file" ? info.size : null;
    entry.mtime = info.mtime.toISOString();
  }
  return entry;
}
