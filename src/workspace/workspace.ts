/**
 * The workspace: its root, resolved and pinned once at start, and the one
 * way to reach a path in it, {@linkcode Workspace.open}. A path is checked
 * (./confine.ts: spelling, then its real path inside the root) and the
 * object it names is then opened beneath the pinned root without following
 * any symlink, into a disposable {@linkcode Handle}. The backend that holds
 * handles is chosen once, here: Linux's fd-pinned one (O_PATH, statx,
 * getdents64, /proc/self/fd), on macOS the POSIX fd-pinned one, which
 * `WORKCELL_FILE_BACKEND=posix-fd` selects on Linux too, for its tests
 * (docs/confinement.md).
 *
 * @example
 * ```ts
 * using ws = openWorkspace("/repo");
 * using file = ws.open("src/main.ts", { expect: "file" });
 * const bytes = await file.readAll();
 * ```
 */
import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { checkPath, type ConfinedPath, PathChanged, resolutionError } from "./confine.ts";
import { FD_BACKEND } from "./fd_backend.ts";
import { type FileBackend, type Handle, type MissingPath, notAFile } from "./handle.ts";
import { POSIX_FD_BACKEND } from "./posix_fd_backend.ts";

/** The environment variable that selects the file backend: `posix-fd`, or unset (the system's own). */
export const FILE_BACKEND_ENV = "WORKCELL_FILE_BACKEND";

/** Times a path that keeps changing between the check and the open is checked again. */
const OPEN_ATTEMPTS = 3;

/** Why a workspace could not be opened; main.ts prints it and exits. */
export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

/** What {@linkcode Workspace.open} must find: a regular file, a directory, or anything. */
export type Expect = "file" | "dir" | "any";

/** Options of {@linkcode Workspace.open}. */
export interface OpenOptions {
  expect: Expect;
  /** Accept a target that does not exist yet (its existing parents are still checked): a MissingPath then. */
  allowMissing?: boolean;
}

/** The backends `WORKCELL_FILE_BACKEND` can name, for the test suite's runs. */
const SELECTABLE: Readonly<Record<string, FileBackend>> = {
  "posix-fd": POSIX_FD_BACKEND,
};

/**
 * The backend a value of `WORKCELL_FILE_BACKEND` names on `os`: `posix-fd`, or when it is unset or empty the
 * system's own: Linux's fd backend, the POSIX fd backend on macOS.
 *
 * @example
 * ```ts
 * chosenBackend(undefined, "linux").name; // "fd"
 * chosenBackend(undefined, "darwin").name; // "posix-fd"
 * chosenBackend("posix-fd", "linux").name; // "posix-fd"
 * ```
 */
export function chosenBackend(name: string | undefined, os: typeof Deno.build.os = Deno.build.os): FileBackend {
  if (name === undefined || name === "") return os === "darwin" ? POSIX_FD_BACKEND : FD_BACKEND;
  const chosen = SELECTABLE[name];
  if (chosen) return chosen;
  throw new WorkspaceError(
    `${FILE_BACKEND_ENV}=${name} names no file backend (use ${
      Object.keys(SELECTABLE).map((key) => `"${key}"`).join(" or ")
    }, or leave it unset)`,
  );
}

function missing(target: ConfinedPath): MissingPath {
  return { exists: false, rel: target.rel, abs: target.abs, [Symbol.dispose]() {} };
}

function notADirectory(rel: string): ToolError {
  return new ToolError("NOT_A_DIRECTORY", `${rel} is not a directory`, { details: { path: rel } });
}

/**
 * The confined root, resolved once at start and pinned by its backend for the life of the workspace.
 *
 * @example
 * ```ts
 * using ws = openWorkspace(Deno.cwd());
 * using dir = ws.open(".", { expect: "dir" });
 * dir.rel; // "."
 * ```
 */
export class Workspace implements Disposable {
  /** The real path of the workspace directory (symlinks resolved). */
  readonly root: string;
  /** The absolute path as the user spelled it, before symlinks were resolved. */
  readonly given: string;
  readonly #pinned: Handle;

  constructor(root: string, given: string, pinned: Handle) {
    this.root = root;
    this.given = given;
    this.#pinned = pinned;
  }

  /**
   * Confines `input` and opens the object it names. Relative paths resolve against the root; absolute ones
   * must lie inside it; every symlink and parent is resolved and must stay inside (PATH_OUTSIDE_WORKSPACE). The
   * real path approved is then opened beneath the pinned root following no symlink at all, so a directory
   * swapped for a symlink after the check fails the open (and the path is checked again, up to three times:
   * then INVALID_ARGUMENT, "changed while it was being checked") instead of redirecting it. `expect` "file"
   * refuses anything but a regular file with NOT_A_FILE (before it is opened for reading: a FIFO would block),
   * "dir" anything but a directory with NOT_A_DIRECTORY. A missing target is NOT_FOUND, or with `allowMissing`
   * a {@linkcode MissingPath}.
   */
  open(input: string, options: { expect: Expect; allowMissing?: false }): Handle;
  open(input: string, options: OpenOptions): Handle | MissingPath;
  open(input: string, options: OpenOptions): Handle | MissingPath {
    for (let attempt = 1;; attempt++) {
      const target = checkPath(this, input, options);
      if (!target.exists) return missing(target);
      let handle: Handle;
      try {
        handle = this.#pinned.openBeneath(target.rel, "any");
      } catch (error) {
        const changed = error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory ||
          error instanceof Deno.errors.NotFound || error instanceof PathChanged;
        if (!changed) throw resolutionError(input, error);
        if (attempt < OPEN_ATTEMPTS) continue;
        this.#assertRootInPlace();
        if (!(error instanceof Deno.errors.NotFound)) throw new PathChanged(input);
        if (options.allowMissing) return missing(target);
        throw new ToolError("NOT_FOUND", `${input} does not exist`, { details: { path: target.rel } });
      }
      // The check resolved every symlink, so a symlink here was swapped in after it.
      if (handle.stat.kind === "symlink") {
        handle[Symbol.dispose]();
        if (attempt === OPEN_ATTEMPTS) throw new PathChanged(input);
        continue;
      }
      return this.#expected(handle, options.expect);
    }
  }

  /** Closes the pinned root. */
  [Symbol.dispose](): void {
    this.#pinned[Symbol.dispose]();
  }

  #expected(handle: Handle, expect: Expect): Handle {
    const kind = handle.stat.kind;
    if (expect === "any" || kind === expect) return handle;
    handle[Symbol.dispose]();
    throw expect === "file" ? notAFile(handle.rel, kind) : notADirectory(handle.rel);
  }

  /**
   * Throws when the directory at the workspace's path is no longer the one pinned at start (deleted and made
   * again, or replaced): the server keeps acting on the pinned one, so paths that exist at the path are missing.
   */
  #assertRootInPlace(): void {
    const now = (() => {
      try {
        return Deno.statSync(this.root);
      } catch {
        return null;
      }
    })();
    // The pinned root is current where its path leads to it.
    if (now?.ino === this.#pinned.stat.ino && now?.dev === this.#pinned.stat.dev && this.#pinned.isCurrent()) return;
    throw new ToolError(
      "INTERNAL",
      `the workspace directory ${this.root} was removed or replaced since the server started`,
      {
        hint: "Restart the server: it stays on the directory it was started in and never follows a replacement.",
        details: { workspace: this.root },
      },
    );
  }
}

/**
 * Resolves and checks the workspace directory given on the command line and pins it with `backend` (by default
 * the one {@linkcode chosenBackend} names from the environment).
 *
 * @example
 * ```ts
 * using ws = openWorkspace(Deno.cwd());
 * ws.root; // the real path
 * ```
 */
export function openWorkspace(
  dir: string,
  backend: FileBackend = chosenBackend(Deno.env.get(FILE_BACKEND_ENV)),
): Workspace {
  const given = path.resolve(dir);
  let root: string;
  try {
    root = Deno.realPathSync(given);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new WorkspaceError(`workspace ${given} does not exist`);
    throw new WorkspaceError(`workspace ${given} cannot be opened: ${(error as Error).message}`);
  }
  if (!Deno.statSync(root).isDirectory) throw new WorkspaceError(`workspace ${given} is not a directory`);
  try {
    return new Workspace(root, given, backend.pinRoot(root));
  } catch (error) {
    // Every confined open walks from the pinned root: there is no unpinned fallback to drop to.
    throw new WorkspaceError(`workspace ${given} cannot be pinned: ${(error as Error).message}`);
  }
}
