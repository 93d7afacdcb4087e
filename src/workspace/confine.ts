/** The path check run (by Workspace.open alone) before anything opens, and the one predicate of being inside. */
import * as path from "node:path";
import { fromOsError, ToolError } from "../errors.ts";
import type { Workspace } from "./workspace.ts";

/** Longest path accepted, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest single path component accepted, in UTF-8 bytes (Linux NAME_MAX). */
export const MAX_COMPONENT_BYTES = 255;

/** Where paths are checked: the workspace's real path, and the absolute path as the user spelled it. */
type CheckedRoot = Pick<Workspace, "root" | "given">;

/** A path that passed the check. */
export interface ConfinedPath {
  /** Absolute real path (symlinks resolved) of the target or, when missing, of its parent joined with the rest. */
  readonly abs: string;
  /** Workspace-relative path with `/` separators; "." for the root. */
  readonly rel: string;
  readonly exists: boolean;
}

const encoder = new TextEncoder();

/** Whether a path has a `..` component (the only spelling that can climb; `.` and `//` cannot). */
function climbs(spelled: string): boolean {
  return spelled.includes("..") && /(^|\/)\.\.(\/|$)/.test(spelled);
}

/**
 * Whether `target` is `root` or beneath it, lexically; a relative one is against `root`, inside unless `..` climbs.
 * @example
 * ```ts
 * isInside("/repo", "/repository"); // false
 * ```
 */
export function isInside(root: string, target: string): boolean {
  if (!target.startsWith("/")) {
    if (!climbs(target)) return true; // relative without `..`: beneath by construction
    const normal = path.posix.normalize(target);
    return normal !== ".." && !normal.startsWith("../");
  }
  const abs = climbs(target) ? path.posix.normalize(target) : target;
  return abs === root || abs.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * The workspace-relative, `/`-separated form of an absolute path inside the workspace.
 * @example
 * ```ts
 * toRelative({ root: "/repo" }, "/repo/src/a.ts"); // "src/a.ts"
 * ```
 */
export function toRelative(ws: { readonly root: string }, abs: string): string {
  const rel = path.relative(ws.root, abs);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

function outside(input: string, why: string): ToolError {
  return new ToolError("PATH_OUTSIDE_WORKSPACE", `${input} ${why}`, {
    details: { path: input },
  });
}

function invalid(input: string, why: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", `path ${JSON.stringify(input.slice(0, 200))} ${why}`, {
    hint: "Pass a plain workspace-relative path.",
    details: { field: "path" },
  });
}

/** Checks the spelling of a path: no NUL, bounded length, lexically inside. Returns the relative normalised form. */
function lexicalRelative(place: CheckedRoot, input: string): string {
  if (input.length === 0) throw invalid(input, "is empty");
  if (input.includes("\0")) throw invalid(input, "contains a NUL byte");
  if (encoder.encode(input).length > MAX_PATH_BYTES) throw invalid(input, `is longer than ${MAX_PATH_BYTES} bytes`);
  if (input.split("/").some((part) => encoder.encode(part).length > MAX_COMPONENT_BYTES)) {
    throw invalid(input, `has a component longer than ${MAX_COMPONENT_BYTES} bytes`);
  }
  if (path.isAbsolute(input)) {
    const normal = path.resolve(input);
    const base = [place.root, place.given].find((root) => isInside(root, normal));
    if (base === undefined) throw outside(input, "is an absolute path outside the workspace");
    return path.relative(base, normal) || ".";
  }
  if (!isInside(place.root, input)) throw outside(input, "climbs out of the workspace with ..");
  return path.normalize(input);
}

/** INVALID_ARGUMENT for a path replaced while checked or used; its own class so retries can tell the race apart. */
export class PathChanged extends ToolError {
  constructor(input: string) {
    super("INVALID_ARGUMENT", `${input} changed while it was being checked`, {
      hint: "Something renamed or replaced part of the path at the same time; call again.",
      details: { field: "path" },
    });
  }
}

/**
 * The ToolError for a path that failed to resolve or open: a symlink loop is the caller's argument, the rest OS errors.
 * @example
 * ```ts
 * resolutionError("a", new Deno.errors.FilesystemLoop("loop")).code; // "INVALID_ARGUMENT"
 * ```
 */
export function resolutionError(input: string, error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.FilesystemLoop || /loop|too many levels/i.test(message)) {
    return invalid(input, "runs into a symlink loop");
  }
  return fromOsError(error, input);
}

/** The real path of a symlink `link` found at `next` below `base`, refused when it leads outside or dangles. */
function followLink(place: CheckedRoot, input: string, base: string, next: string): string {
  let real: string;
  try {
    real = Deno.realPathSync(next);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw resolutionError(input, error);
    let link: string | null = null;
    try {
      link = Deno.readLinkSync(next);
    } catch {
      // The link vanished or stopped being a link since lstat: the path is being changed under us.
      throw new PathChanged(input);
    }
    if (!isInside(place.root, path.resolve(base, link))) {
      throw outside(input, "goes through a dangling symlink that points outside the workspace");
    }
    throw invalid(input, "goes through a dangling symlink");
  }
  if (!isInside(place.root, real)) throw outside(input, "resolves through a symlink to a place outside the workspace");
  return real;
}

/**
 * Checks a user path: its real path must stay inside the root (with `allowMissing`, its deepest existing parent's).
 * Synchronous on purpose: realpath takes microseconds, the async op's thread-pool hop 0.1-0.7 ms on a loaded machine.
 * @example
 * ```ts
 * checkPath({ root: "/repo", given: "/repo" }, "../etc/passwd"); // throws PATH_OUTSIDE_WORKSPACE
 * ```
 */
export function checkPath(place: CheckedRoot, input: string, options: { allowMissing?: boolean } = {}): ConfinedPath {
  const relative = lexicalRelative(place, input);
  const joined = path.join(place.root, relative);
  try {
    const real = Deno.realPathSync(joined);
    if (!isInside(place.root, real)) {
      throw outside(input, "resolves through a symlink to a place outside the workspace");
    }
    return { abs: real, rel: toRelative(place, real), exists: true };
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (!(error instanceof Deno.errors.NotFound)) throw resolutionError(input, error);
  }
  // Missing: find the deepest existing ancestor, check it, refuse dangling links below it.
  const parts = relative.split(path.sep);
  let base = place.root;
  let index = 0;
  for (; index < parts.length; index++) {
    const next = path.join(base, parts[index]);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) break;
      throw resolutionError(input, error);
    }
    base = info.isSymlink ? followLink(place, input, base, next) : next;
  }
  const abs = path.join(base, ...parts.slice(index));
  if (!options.allowMissing) {
    throw new ToolError("NOT_FOUND", `${input} does not exist`, { details: { path: toRelative(place, abs) } });
  }
  return { abs, rel: toRelative(place, abs), exists: false };
}
