/** What a confined path opens into: a Handle, held as its backend decides (fd_backend.ts, posix_fd_backend.ts). */
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
 * NOT_A_FILE for a directory or special file, refused before any open to read it (a FIFO blocks, a device may act).
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
 * @example
 * ```ts
 * entryPath(".", "a.txt"); // "a.txt"
 * ```
 */
export function entryPath(rel: string, name: string): string {
  return rel === "." ? name : `${rel}/${name}`;
}

/**
 * Whether `a` and `b` are the same object (device and inode).
 * @example
 * ```ts
 * declare const a: FileStat, b: FileStat;
 * if (!sameObject(a, b)) console.log("another object");
 * ```
 */
export function sameObject(a: Pick<FileStat, "dev" | "ino">, b: Pick<FileStat, "dev" | "ino">): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** A confined object held by a backend: real paths, no act follows a symlink, tree changes are the patch commit's. */
export abstract class Handle implements Disposable {
  /** Always true: a path that does not exist opens into a {@linkcode MissingPath}. */
  readonly exists = true as const;

  constructor(
    /** Workspace-relative real path with `/` separators; "." for the root. */
    readonly rel: string,
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

  /** The first `length` bytes of the regular file held, fewer when it ends before. */
  async readPrefix(length: number): Promise<Uint8Array<ArrayBuffer>> {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const n = await this.read(buffer.subarray(filled), filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  }

  abstract entries(): RawDirEntry[];

  /** The entry `name` of the directory held, not following a symlink there (lstat). */
  abstract statEntry(name: Name): FileStat;

  /** Opens the entry `name` of the directory held, following no symlink (a symlink fails as `dir`). */
  abstract openEntry(name: Name, expect: Reach): Handle;

  /** Opens the real path `rel` beneath the directory held, one component at a time, following no symlink. */
  abstract openBeneath(rel: string, expect: Reach): Handle;

  /** Whether the path from the workspace root still leads, without a symlink, to this very object. */
  abstract isCurrent(): boolean;

  /** A child's cwd for the directory held: the fd's name, entered by fchdir (valid while open), so no path resolves. */
  abstract childCwd(): string;

  /** What a child's stdin gets to read the regular file held: an fd of this process, or the bytes themselves. */
  abstract childStdin(): Promise<number | Uint8Array<ArrayBuffer>>;

  abstract mkdir(name: string): void;

  /** Creates new file `name` exclusively, open to write: `mode` less the umask or, if `exact`, exactly (fchmod). */
  abstract create(name: string, mode: number, exact: boolean): Handle;

  /** Hard-links the entry `from` as `to` in the directory held (fails with AlreadyExists when `to` exists). */
  abstract link(from: string, to: string): void;

  /** Renames the entry `from` to `to` in the directory held, replacing `to` atomically. */
  abstract rename(from: string, to: string): void;

  abstract remove(name: string, directory?: boolean): void;

  /** Writes all of `bytes` to the file held (one created by {@linkcode create}). */
  abstract writeAll(bytes: Uint8Array): void;

  abstract sync(): Promise<void>;

  /** Whether syncFileSystem works: on Linux's backend (syncfs(2)); POSIX has none, so the commit fsyncs each file. */
  abstract readonly syncsFileSystem: boolean;

  /** Makes all writes to the object's file system durable, whoever wrote them (syncfs(2)); or rejects NotSupported. */
  abstract syncFileSystem(): Promise<void>;

  /** Waits up to `waitMs` for an exclusive flock of the file held, released on dispose; else rejects with TimedOut. */
  abstract lock(waitMs: number): Promise<void>;

  abstract [Symbol.dispose](): void;

  /** Throws PATH_OUTSIDE_WORKSPACE unless the path still leads here: the check after a child (rg) walked it by path. */
  revalidate(): void {
    if (this.isCurrent()) return;
    throw new ToolError("PATH_OUTSIDE_WORKSPACE", `${this.rel} changed (a symlink was swapped in) during the call`, {
      hint: "Retry; symlinks that lead outside the workspace are never followed.",
      details: { path: this.rel },
    });
  }
}

/** A confined path where nothing exists yet (opened with `allowMissing`): its existing parents were checked. */
export interface MissingPath extends Disposable {
  readonly exists: false;
  /** Workspace-relative path: the real path of the deepest existing parent joined with the rest. */
  readonly rel: string;
  readonly abs: string;
}

/** A file-access backend: it pins the workspace root at start-up; every other act goes through the handles it opens. */
export interface FileBackend {
  readonly name: BackendName;
  /** Pins the directory `abs` (a real path) as the workspace root; throws the OS error when it cannot. */
  pinRoot(abs: string): Handle;
}
