/** What a confined path opens into: a Handle (fd_handle.ts), held as each backend decides (fd_backend.ts and POSIX). */
import { ToolError } from "../errors.ts";
import type { RawDirEntry } from "../os/fs_dir.ts";
import type { FdStat, FileKind } from "../os/fs_stat.ts";
import type { Name } from "../os/fs_call.ts";
import type { Handle } from "./fd_handle.ts";

// The shapes are the OS layer's (statx and getdents64, or fstat and readdir), passed through.
export type { FileKind, Handle, Name, RawDirEntry };

/** What a backend knows of an object: its kind, permission bits, size, mtime and identity (dev, ino). */
export type FileStat = FdStat;

/** What an opened entry must be: a directory, or anything (a final symlink is then held, not followed). */
export type Reach = "dir" | "any";

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

/** A confined path where nothing exists yet (opened with `allowMissing`): its existing parents were checked. */
export interface MissingPath extends Disposable {
  readonly exists: false;
  /** Workspace-relative path: the real path of the deepest existing parent joined with the rest. */
  readonly rel: string;
  readonly abs: string;
}

/** A file-access backend: it pins the workspace root at start-up; every other act goes through the handles it opens. */
export interface FileBackend {
  /** Linux's fd-pinned backend, or the POSIX fd-pinned one (macOS's; selectable on Linux for its tests). */
  readonly name: "fd" | "posix-fd";
  /** Pins the directory `abs` (a real path) as the workspace root; throws the OS error when it cannot. */
  pinRoot(abs: string): Handle;
}
