/**
 * The one thing a confined path opens into: a {@linkcode Handle}, disposed
 * with `using`. It carries the workspace-relative and absolute real path, the
 * stat of the object it holds, and every act the tools make on that object
 * (read it, list it, stat or open an entry, run a child in it, and the patch
 * commit's writes). What holds the object is the backend's business
 * (fd_backend.ts and posix_fd_backend.ts: an fd, or for a symlink or special
 * file on the POSIX one its stat); the tools and domain modules see only this class.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * using file = ws.open("README.md", { expect: "file" });
 * const head = new Uint8Array(64);
 * await file.read(head, 0);
 * file.stat.size;
 * ```
 */
import { ToolError } from "../errors.ts";
import type { RawDirEntry } from "../os/fs_dir.ts";
import type { FdStat, FileKind } from "../os/fs_stat.ts";
import type { Name } from "../os/fs_call.ts";

// The shapes are the OS layer's (statx and getdents64, or fstat and readdir), passed through.
export type { FileKind, Name, RawDirEntry };

/** What a backend knows of an object: its kind, permission bits, size, mtime and identity (dev, ino). */
export type FileStat = FdStat;

/** What an opened entry must be: a directory, or anything (a final symlink is then held, not followed). */
export type Reach = "dir" | "any";

/** The backends: Linux's fd-pinned one and the POSIX fd-pinned one (macOS's; selectable on Linux for its tests). */
export type BackendName = "fd" | "posix-fd";

/**
 * NOT_A_FILE for `rel`, which is a directory or a special file: refused before anything opens it for reading
 * (a FIFO would block, a device may act on open).
 *
 * @example
 * ```ts
 * notAFile("src", "dir").message; // "src is a directory, not a regular file"
 * ```
 */
export function notAFile(rel: string, kind: FileKind): ToolError {
  const what = kind === "dir" ? "a directory" : "a special file (device, FIFO or socket)";
  return new ToolError("NOT_A_FILE", `${rel} is ${what}, not a regular file`, {
    hint: kind === "dir" ? "Use list_dir for directories." : "Only regular files can be read.",
    details: { path: rel },
  });
}

/**
 * The workspace-relative path of the entry `name` of the directory at `rel`.
 *
 * @example
 * ```ts
 * entryPath(".", "a.txt"); // "a.txt"
 * entryPath("src", "a.txt"); // "src/a.txt"
 * ```
 */
export function entryPath(rel: string, name: string): string {
  return rel === "." ? name : `${rel}/${name}`;
}

/**
 * Whether `a` and `b` are the same object (device and inode).
 *
 * @example
 * ```ts
 * declare const a: FileStat, b: FileStat;
 * if (!sameObject(a, b)) console.log("another object");
 * ```
 */
export function sameObject(a: Pick<FileStat, "dev" | "ino">, b: Pick<FileStat, "dev" | "ino">): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * A confined object, held open by a backend. Paths are real (no symlink in them): `rel` workspace-relative with
 * `/` ("." for the root), `abs` absolute. Directory acts take one name (or, for openBeneath, a relative real path)
 * and never follow a symlink there. Acts that change the tree exist for the patch commit; nothing else writes.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * using dir = ws.open("src", { expect: "dir" });
 * for (const entry of dir.entries()) {
 *   if (entry.kind === "dir") {
 *     using sub = dir.openEntry(entry.name, "dir");
 *     sub.entries().length;
 *   }
 * }
 * ```
 */
export abstract class Handle implements Disposable {
  /** Always true: a path that does not exist opens into a {@linkcode MissingPath}. */
  readonly exists = true as const;

  constructor(
    /** Workspace-relative real path with `/` separators; "." for the root. */
    readonly rel: string,
    /** Absolute real path. */
    readonly abs: string,
    /** The object as it was when opened. */
    readonly stat: FileStat,
  ) {}

  /** The object's stat now (it is the same object; its size, mode or mtime may have changed). */
  abstract restat(): FileStat;

  /** Reads up to `buffer.length` bytes at `position` of the regular file held; 0 at its end. */
  abstract read(buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number>;

  /** The whole content of the regular file held (the result may view a slightly longer buffer). */
  abstract readAll(): Promise<Uint8Array<ArrayBuffer>>;

  /** The entries of the directory held, in directory order. */
  abstract entries(): RawDirEntry[];

  /** The entry `name` of the directory held, not following a symlink there (lstat). */
  abstract statEntry(name: Name): FileStat;

  /** Opens the entry `name` of the directory held, following no symlink (a symlink fails as `dir`). */
  abstract openEntry(name: Name, expect: Reach): Handle;

  /** Opens the real path `rel` beneath the directory held, one component at a time, following no symlink. */
  abstract openBeneath(rel: string, expect: Reach): Handle;

  /** Whether the path from the workspace root still leads, without a symlink, to this very object. */
  abstract isCurrent(): boolean;

  /**
   * The working directory to give a child started now so that it runs in the directory held: the name of the fd,
   * which the spawner enters by fchdir (valid while the handle is open), so no path is resolved.
   */
  abstract childCwd(): string;

  /** What a child's stdin gets to read the regular file held: an fd of this process, or the bytes themselves. */
  abstract childStdin(): Promise<number | Uint8Array<ArrayBuffer>>;

  /** Creates the directory `name` in the directory held. */
  abstract mkdir(name: string): void;

  /**
   * Creates the new file `name` exclusively in the directory held, open for writing, with `mode` before the umask,
   * or, when `exact`, with exactly `mode` (a replaced file's own mode), set through the file itself (fchmod).
   */
  abstract create(name: string, mode: number, exact: boolean): Handle;

  /** Hard-links the entry `from` as `to` in the directory held (fails with AlreadyExists when `to` exists). */
  abstract link(from: string, to: string): void;

  /** Renames the entry `from` to `to` in the directory held, replacing `to` atomically. */
  abstract rename(from: string, to: string): void;

  /** Removes the file (or, with `directory`, the empty directory) `name` from the directory held. */
  abstract remove(name: string, directory?: boolean): void;

  /** Writes all of `bytes` to the file held (one created by {@linkcode create}). */
  abstract writeAll(bytes: Uint8Array): void;

  /** Makes the object held durable (fsync). */
  abstract sync(): Promise<void>;

  /**
   * Whether {@linkcode syncFileSystem} can be called: Linux's fd backend's can (syncfs(2)); the POSIX one
   * has no call that flushes a whole file system (POSIX offers none), so the patch commit fsyncs each file there.
   */
  abstract readonly syncsFileSystem: boolean;

  /**
   * Makes everything written to the file system the object held lies on durable, data and metadata, whoever
   * wrote it (syncfs(2)); rejects with NotSupported where {@linkcode syncsFileSystem} is false.
   */
  abstract syncFileSystem(): Promise<void>;

  /**
   * Waits up to `waitMs` for an exclusive lock (flock) of the regular file held, released on dispose; rejects
   * with TimedOut when another process holds it longer.
   */
  abstract lock(waitMs: number): Promise<void>;

  /** Closes what the handle holds. */
  abstract [Symbol.dispose](): void;

  /**
   * Throws PATH_OUTSIDE_WORKSPACE unless the path still leads to this very object: the check after a child
   * walked below it by path (rg without Landlock), whose results are then refused.
   */
  revalidate(): void {
    if (this.isCurrent()) return;
    throw new ToolError("PATH_OUTSIDE_WORKSPACE", `${this.rel} changed (a symlink was swapped in) during the call`, {
      hint: "Retry; symlinks that lead outside the workspace are never followed.",
      details: { path: this.rel },
    });
  }
}

/**
 * A confined path where nothing exists yet (opened with `allowMissing`): its existing parents were checked.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "./workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * using target = ws.open("new/file.txt", { expect: "any", allowMissing: true });
 * if (!target.exists) target.rel; // "new/file.txt"
 * ```
 */
export interface MissingPath extends Disposable {
  readonly exists: false;
  /** Workspace-relative path: the real path of the deepest existing parent joined with the rest. */
  readonly rel: string;
  readonly abs: string;
}

/**
 * A file-access backend: how the workspace root is pinned at start-up; every other act goes through the
 * {@linkcode Handle}s it opens from there.
 *
 * @example
 * ```ts
 * declare const backend: FileBackend;
 * using root = backend.pinRoot("/repo");
 * root.stat.kind; // "dir"
 * ```
 */
export interface FileBackend {
  readonly name: BackendName;
  /** Pins the directory `abs` (a real path) as the workspace root; throws the OS error when it cannot. */
  pinRoot(abs: string): Handle;
}
