/**
 * The one gate every tool path goes through: realpath-based workspace
 * confinement with workspace-relative, `/`-separated reporting.
 *
 * @example
 * ```ts
 * const ws = await openWorkspace("/repo");
 * const { abs, rel } = await confine(ws, "src/main.ts");
 * ```
 */
import * as path from "node:path";
import { fromOsError, ToolError } from "../errors.ts";
import { fdPath, type FdStat, openBeneath, openDirectory, reopenFd, statFd } from "../os/fs_at.ts";
import { O } from "../os/libc.ts";
import { closeFd } from "../os/fd.ts";

/** Longest path accepted, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest single path component accepted, in UTF-8 bytes (Linux NAME_MAX). */
export const MAX_COMPONENT_BYTES = 255;

/** The confined root, resolved once at start. */
export interface Workspace {
  /** The real path of the workspace directory (symlinks resolved). */
  readonly root: string;
  /** The absolute path as the user spelled it, before symlinks were resolved. */
  readonly given: string;
  /** An O_PATH fd of the root, open for the life of the process: every confined open walks from it. */
  readonly fd: number;
}

/** Why a workspace could not be opened; main.ts prints it and exits. */
export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

/** A path that passed confinement. */
export interface ConfinedPath {
  /** Absolute real path (symlinks resolved) of the target or, when missing, of its parent joined with the rest. */
  readonly abs: string;
  /** Workspace-relative path with `/` separators; "." for the root. */
  readonly rel: string;
  /** Whether the target exists. */
  readonly exists: boolean;
}

/** Options for {@linkcode confine}. */
export interface ConfineOptions {
  /** Accept a target that does not exist yet (its existing parents are still checked). Default false. */
  allowMissing?: boolean;
}

const encoder = new TextEncoder();

/**
 * Resolves and checks the workspace directory given on the command line.
 *
 * @example
 * ```ts
 * const ws = await openWorkspace(Deno.cwd());
 * ```
 */
export async function openWorkspace(dir: string): Promise<Workspace> {
  const given = path.resolve(dir);
  let root: string;
  try {
    root = await Deno.realPath(given);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new WorkspaceError(`workspace ${given} does not exist`);
    throw new WorkspaceError(`workspace ${given} cannot be opened: ${(error as Error).message}`);
  }
  const info = await Deno.stat(root);
  if (!info.isDirectory) throw new WorkspaceError(`workspace ${given} is not a directory`);
  try {
    return { root, given, fd: openDirectory(root) };
  } catch (error) {
    // Every confined open walks from this fd through libc: there is no path-based fallback to drop to.
    throw new WorkspaceError(`workspace ${given} cannot be pinned: ${(error as Error).message}`);
  }
}

/** Whether `abs` is `root` or lies beneath it (both absolute and normalised). */
export function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * The workspace-relative, `/`-separated form of an absolute path inside the workspace.
 *
 * @example
 * ```ts
 * const ws = await openWorkspace("/repo");
 * toRelative(ws, "/repo/src/a.ts"); // "src/a.ts"
 * ```
 */
export function toRelative(ws: Workspace, abs: string): string {
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
function lexicalRelative(ws: Workspace, input: string): string {
  if (input.length === 0) throw invalid(input, "is empty");
  if (input.includes("\0")) throw invalid(input, "contains a NUL byte");
  if (encoder.encode(input).length > MAX_PATH_BYTES) throw invalid(input, `is longer than ${MAX_PATH_BYTES} bytes`);
  for (const part of input.split("/")) {
    if (encoder.encode(part).length > MAX_COMPONENT_BYTES) {
      throw invalid(input, `has a component longer than ${MAX_COMPONENT_BYTES} bytes`);
    }
  }
  let relative: string;
  if (path.isAbsolute(input)) {
    const normal = path.resolve(input);
    const base = [ws.root, ws.given].find((root) => isInside(root, normal));
    if (base === undefined) throw outside(input, "is an absolute path outside the workspace");
    relative = path.relative(base, normal);
  } else {
    relative = path.normalize(input);
  }
  if (relative === ".." || relative.startsWith(".." + path.sep)) {
    throw outside(input, "climbs out of the workspace with ..");
  }
  return relative === "" ? "." : relative;
}

/** INVALID_ARGUMENT for a path that something renamed or replaced while it was being checked or pinned. */
export function changing(input: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", `${input} changed while it was being checked`, {
    hint: "Something renamed or replaced part of the path at the same time; call again.",
    details: { field: "path" },
  });
}

/** The ToolError for a path that failed to resolve: a symlink loop is the caller's argument, the rest as any OS error. */
function resolutionError(input: string, error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.FilesystemLoop || /loop|too many levels/i.test(message)) {
    return invalid(input, "runs into a symlink loop");
  }
  return fromOsError(error, input);
}

/**
 * Confines a user-supplied path to the workspace. Relative paths resolve
 * against the root; absolute ones must lie inside it. Every existing
 * component is resolved through the OS (symlinks and all parents), and the
 * result must stay inside the root. Missing targets are refused unless
 * `allowMissing`, in which case the deepest existing parent is checked and
 * no missing component may be a dangling symlink.
 *
 * @example
 * ```ts
 * const ws = await openWorkspace("/repo");
 * await confine(ws, "../etc/passwd"); // throws PATH_OUTSIDE_WORKSPACE
 * ```
 */
export async function confine(ws: Workspace, input: string, options: ConfineOptions = {}): Promise<ConfinedPath> {
  const relative = lexicalRelative(ws, input);
  const joined = path.join(ws.root, relative);
  try {
    // Synchronous on purpose: realpath of a local path takes microseconds, while the async
    // op's hop through the blocking thread pool costs 0.1-0.7 ms per call on a loaded machine.
    const real = Deno.realPathSync(joined);
    if (!isInside(ws.root, real)) throw outside(input, "resolves through a symlink to a place outside the workspace");
    return { abs: real, rel: toRelative(ws, real), exists: true };
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (!(error instanceof Deno.errors.NotFound)) throw resolutionError(input, error);
  }
  // Missing: find the deepest existing ancestor, check it, refuse dangling links below it.
  const parts = relative.split(path.sep);
  let base = ws.root;
  let index = 0;
  for (; index < parts.length; index++) {
    const next = path.join(base, parts[index]);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) break;
      throw resolutionError(input, error);
    }
    if (info.isSymlink) {
      let real: string;
      try {
        real = await Deno.realPath(next);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw resolutionError(input, error);
        const link = await Deno.readLink(next).catch(() => null);
        // The link vanished or stopped being a link since lstat: the path is being changed under us.
        if (link === null) throw changing(input);
        const target = path.resolve(base, link);
        if (!isInside(ws.root, target)) {
          throw outside(input, "goes through a dangling symlink that points outside the workspace");
        }
        throw invalid(input, "goes through a dangling symlink");
      }
      if (!isInside(ws.root, real)) throw outside(input, "resolves through a symlink to a place outside the workspace");
      base = real;
    } else {
      base = next;
    }
  }
  const abs = path.join(base, ...parts.slice(index));
  if (!options.allowMissing) {
    throw new ToolError("NOT_FOUND", `${input} does not exist`, { details: { path: toRelative(ws, abs) } });
  }
  return { abs, rel: toRelative(ws, abs), exists: false };
}

/**
 * Throws when the directory at the workspace's path is no longer the one pinned at start (deleted and made
 * again, or replaced): the server keeps acting on the pinned one, so paths that exist at the path are missing.
 */
function assertRootInPlace(ws: Workspace): void {
  const pinned = statFd(ws.fd);
  const now = (() => {
    try {
      return Deno.statSync(ws.root);
    } catch {
      return null;
    }
  })();
  if (now?.ino === pinned.ino) return;
  throw new ToolError(
    "INTERNAL",
    `the workspace directory ${ws.root} was removed or replaced since the server started`,
    {
      hint: "Restart the server: it stays on the directory it was started in and never follows a replacement.",
      details: { workspace: ws.root },
    },
  );
}

/** A confined path opened by {@linkcode openConfined}: the object itself, pinned by an fd. */
export interface OpenedPath {
  target: ConfinedPath;
  /** An O_PATH fd of the target (reopen it with reopenFd to read); the caller closes it. */
  fd: number;
  stat: FdStat;
}

/** Times a path that keeps changing between confine() and the open is checked again. */
const OPEN_ATTEMPTS = 3;

/**
 * Confines `input` and opens the existing object it names, kernel-checked: the
 * real path confine() approved is opened beneath the workspace root fd one
 * component at a time, following no symlink at all. A directory swapped for a
 * symlink after the check therefore fails the open (and the path is checked
 * again) instead of redirecting it; what the fd names is inside the workspace
 * whatever happens to the path later.
 *
 * @example
 * ```ts
 * import { closeFd } from "../os/fd.ts";
 * import { readAllFd, reopenFd } from "../os/fs_at.ts";
 * import { O } from "../os/libc.ts";
 *
 * const ws = await openWorkspace("/repo");
 * const { fd, stat } = await openConfined(ws, "src/main.ts");
 * try {
 *   if (stat.kind === "file") {
 *     const readable = reopenFd(fd, O.RDONLY);
 *     try {
 *       await readAllFd(readable);
 *     } finally {
 *       closeFd(readable);
 *     }
 *   }
 * } finally {
 *   closeFd(fd);
 * }
 * ```
 */
export async function openConfined(ws: Workspace, input: string): Promise<OpenedPath> {
  for (let attempt = 1;; attempt++) {
    const target = await confine(ws, input);
    let fd: number;
    try {
      fd = openBeneath(ws.fd, target.rel, O.PATH);
    } catch (error) {
      const changed = error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory ||
        error instanceof Deno.errors.NotFound;
      if (!changed) throw resolutionError(input, error);
      if (attempt < OPEN_ATTEMPTS) continue;
      if (error instanceof Deno.errors.NotFound) {
        assertRootInPlace(ws);
        throw new ToolError("NOT_FOUND", `${input} does not exist`, { details: { path: target.rel } });
      }
      throw changing(input);
    }
    const stat = statFd(fd);
    // confine() resolved every symlink, so a symlink here was swapped in after the check.
    if (stat.kind !== "symlink") return { target, fd, stat };
    closeFd(fd);
    if (attempt === OPEN_ATTEMPTS) throw changing(input);
  }
}

/**
 * Runs `fn` with a path naming the directory `abs` (a confined real path inside the workspace) by an fd:
 * `/proc/self/fd/N`, for a child's working directory. The directory is opened beneath the root without following
 * any symlink, so a child started there runs in it even if the path is swapped for a symlink meanwhile.
 *
 * @example
 * ```ts
 * const ws = await openWorkspace("/repo");
 * await inPinnedDirectory(ws, "/repo/src", (cwd) => new Deno.Command("git", { cwd, args: ["status"] }).output());
 * ```
 */
export async function inPinnedDirectory<T>(ws: Workspace, abs: string, fn: (cwd: string) => Promise<T>): Promise<T> {
  const fd = pinDirectory(ws, toRelative(ws, abs));
  try {
    return await fn(fdPath(fd));
  } finally {
    closeFd(fd);
  }
}

/**
 * An O_PATH fd of the directory `rel` (a workspace-relative real path), opened beneath the root without following
 * any symlink; a symlink found on the way was swapped in after the check (INVALID_ARGUMENT, "changed").
 *
 * @example
 * ```ts
 * const ws = await openWorkspace("/repo");
 * const dirFd = pinDirectory(ws, "src");
 * ```
 */
export function pinDirectory(ws: Workspace, rel: string): number {
  try {
    return openBeneath(ws.fd, rel, O.PATH | O.DIRECTORY);
  } catch (error) {
    if (error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory) throw changing(rel);
    throw resolutionError(rel, error);
  }
}

/** A confined regular file open for reading. */
export interface ReadableFile {
  /** Workspace-relative real path. */
  rel: string;
  /** Open O_RDONLY; the caller closes it (closeFd). */
  fd: number;
  stat: FdStat;
}

/**
 * Opens the confined regular file `input` for reading. Anything else is
 * refused with NOT_A_FILE before it is opened for reading (a FIFO would block,
 * a device may act on open).
 *
 * @example
 * ```ts
 * import { closeFd } from "../os/fd.ts";
 * import { readAllFd } from "../os/fs_at.ts";
 *
 * const ws = await openWorkspace("/repo");
 * const file = await openReadable(ws, "README.md");
 * try {
 *   await readAllFd(file.fd);
 * } finally {
 *   closeFd(file.fd);
 * }
 * ```
 */
export async function openReadable(ws: Workspace, input: string): Promise<ReadableFile> {
  const { target, fd, stat } = await openConfined(ws, input);
  try {
    if (stat.kind !== "file") {
      const what = stat.kind === "dir" ? "a directory" : "a special file (device, FIFO or socket)";
      throw new ToolError("NOT_A_FILE", `${target.rel} is ${what}, not a regular file`, {
        hint: stat.kind === "dir" ? "Use list_dir for directories." : "Only regular files can be read.",
        details: { path: target.rel },
      });
    }
    try {
      return { rel: target.rel, fd: reopenFd(fd, O.RDONLY | O.NONBLOCK | O.NOCTTY), stat };
    } catch (error) {
      throw resolutionError(target.rel, error);
    }
  } finally {
    closeFd(fd);
  }
}
