/**
 * Directory listing, immediate or recursive to a bounded depth, in tree
 * order (each directory's entries sorted by name, children right after
 * their directory). Symlinks are reported as symlinks and never descended;
 * their target is given only when it resolves inside the workspace.
 *
 * Pages resume after the last entry's path in tree order, so an entry is
 * listed once even when others come and go between pages. A page ends at
 * `limit` entries or where its JSON would pass `page.maxChars`.
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
 * });
 * ```
 */
import { z } from "../zod.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Handle, RawDirEntry } from "../workspace/handle.ts";
import { fromOsError } from "../errors.ts";
import { decodeBytes } from "../text/utf8.ts";
import { fitPage, type Paged, type PageRequest } from "../paging/cursor.ts";
import { treeOrder } from "../paging/tree_order.ts";

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
 * listDir(ws, ".", { depth: 1, limit: 10, includeHidden: true, page }).data.entries[0].name;
 * ```
 */
export function listDir(ws: Workspace, input: string, options: ListDirOptions): Paged<DirListing> {
  using top = ws.open(input, { expect: "dir" });
  try {
    return walkTree(ws, top, options);
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

  const walk = (dir: Handle, rel: string, level: number): void => {
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
      if (after !== null && treeOrder(childRel, after) <= 0) before++;
      else if (entries.length < wanted) {
        const entry = describe(dir, child.raw, childRel, child.text, child.lossy);
        entries.push(entry);
        if (entry.type === "symlink") links.push(entry);
      }
      if (child.raw.kind !== "dir" || level >= options.depth) continue;
      try {
        using sub = dir.openEntry(child.raw.name, "dir");
        walk(sub, childRel, level + 1);
      } catch (error) {
        // Unreadable, or no longer a directory (swapped for a symlink since it was listed: never followed).
        if (skipped.length < LIST_DIR_MAX_SKIPPED) {
          skipped.push({ path: childRel, reason: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  };
  walk(top, topRel, 1);

  // Where a link leads is only reported, never read: Workspace.open resolves and pins it, nothing more.
  for (const link of links) link.target = linkTarget(ws, link.path);
  const more = entries.length > options.limit;
  return fitPage(entries.slice(0, options.limit), options.page, {
    more,
    start: before,
    positionAfter: (entry) => ({ p: entry.path }),
    build: (entries) => ({
      path: topRel,
      entries,
      truncated: false,
      total_seen: seen,
      total_exact: exact,
      hidden,
      skipped,
      next_cursor: null,
    }),
  });
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

function describe(dir: Handle, raw: RawDirEntry, rel: string, name: string, lossy: boolean): DirEntry {
  const entry: DirEntry = { path: rel, name, type: raw.kind, size: null, mtime: null };
  if (lossy) entry.name_lossy = true;
  try {
    const info = dir.statEntry(raw.name);
    entry.size = info.kind === "file" ? info.size : null;
    entry.mtime = info.mtime.toISOString();
  } catch {
    // Removed since it was listed.
  }
  return entry;
}
