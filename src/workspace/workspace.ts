/** The workspace: its root, pinned once at start, and the one way to reach a path in it (docs/confinement.md). */
import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { checkPath, type ConfinedPath, PathChanged, resolutionError } from "./confine.ts";
import { statPath } from "../os/fs_stat.ts";
import { FD_BACKEND } from "./fd_backend.ts";
import { type FileBackend, type Handle, type MissingPath, notAFile, sameObject } from "./handle.ts";
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

/**
 * The backend `WORKCELL_FILE_BACKEND` names on `os`: `posix-fd`, or if unset or empty the system's (posix-fd on macOS).
 * @example
 * ```ts
 * chosenBackend(undefined, "darwin").name; // "posix-fd"
 * ```
 */
export function chosenBackend(name: string | undefined, os: typeof Deno.build.os = Deno.build.os): FileBackend {
  if (name === undefined || name === "") return os === "darwin" ? POSIX_FD_BACKEND : FD_BACKEND;
  // The one backend it can name, for the test suite's runs.
  if (name === POSIX_FD_BACKEND.name) return POSIX_FD_BACKEND;
  throw new WorkspaceError(`${FILE_BACKEND_ENV}=${name} names no file backend (use "posix-fd", or leave it unset)`);
}

function missing(target: ConfinedPath): MissingPath {
  return { exists: false, rel: target.rel, abs: target.abs, [Symbol.dispose]() {} };
}

/** The confined root, resolved once at start and pinned by its backend for the life of the workspace. */
export class Workspace implements Disposable {
  /** The real path (symlinks resolved). */
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
   * Confines `input`, then opens its real path beneath the pinned root following no symlink, so a swap after the check
   * fails the open (retried, then PathChanged). Kinds other than `expect` are refused; missing needs `allowMissing`.
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

  [Symbol.dispose](): void {
    this.#pinned[Symbol.dispose]();
  }

  #expected(handle: Handle, expect: Expect): Handle {
    const kind = handle.stat.kind;
    if (expect === "any" || kind === expect) return handle;
    handle[Symbol.dispose]();
    if (expect === "file") throw notAFile(handle.rel, kind);
    throw new ToolError("NOT_A_DIRECTORY", `${handle.rel} is not a directory`, { details: { path: handle.rel } });
  }

  /** Throws when the workspace's path no longer leads to the pinned root: the server keeps acting on the pinned one. */
  #assertRootInPlace(): void {
    const now = statPath(this.root);
    if (now !== null && sameObject(now, this.#pinned.stat) && this.#pinned.isCurrent()) return;
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
 * Resolves, checks and pins the workspace directory with `backend` (by default chosenBackend's from the environment).
 * @example
 * ```ts
 * openWorkspace(Deno.cwd()).root; // the real path
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
