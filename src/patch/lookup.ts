import { eachLimited } from "../async/each_limited.ts";
import { ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { PathChanged, toRelative } from "../workspace/confine.ts";
import type { Handle, MissingPath } from "../workspace/handle.ts";
import { gitDirContaining } from "../workspace/git_dirs.ts";
import type { FileState } from "./change.ts";
import type { Patch } from "./parse.ts";

/** Largest file a patch may read or write, in bytes. */
export const MAX_PATCH_FILE_BYTES = 128 * 1024 * 1024;
/** Times a path whose file is replaced between the check and the read is looked up. */
const LOOKUP_ATTEMPTS = 3;
const LOOKUP_CONCURRENCY = 16;

/** Where a path of the patch leads and what is there. */
export interface PathState {
  /** Workspace-relative real path: one per file, however the patch spells it. */
  rel: string;
  /** The file's bytes and mode; null when nothing is there (an Add File or Move to destination). */
  state: FileState | null;
}

/** Answers for a path as spelled in the patch; rejects with the lookup's error (confinement, PATH_PROTECTED, ...). */
export type LookupPath = (spelled: string) => Promise<PathState>;

/** The git dir `spelled` is in: a `.git` part (any case: case-folding file systems) or any git dir it resolves into. */
function protectingGitDir(ws: Workspace, spelled: string, confined: Handle | MissingPath): string | null {
  if (spelled.split("/").some((part) => part.toLowerCase() === ".git")) return ".git";
  const gitDir = gitDirContaining(ws.root, confined.abs);
  return gitDir === null ? null : toRelative(ws, gitDir);
}

/** Reads `opened` via its handle: a directory swapped for a symlink after the path was checked cannot redirect it. */
async function readState(opened: Handle): Promise<FileState> {
  const { rel, stat } = opened;
  if (stat.kind !== "file") {
    throw new ToolError("NOT_A_FILE", `${rel} is ${stat.kind === "dir" ? "a directory" : "not a regular file"}`, {
      details: { path: rel },
    });
  }
  const tooLarge = (size: number) =>
    new ToolError("FILE_TOO_LARGE", `${rel} has ${size} bytes; apply_patch handles at most ${MAX_PATCH_FILE_BYTES}`, {
      details: { path: rel, size, limit: MAX_PATCH_FILE_BYTES },
    });
  if (stat.size > MAX_PATCH_FILE_BYTES) throw tooLarge(stat.size);
  const bytes = await opened.readAll();
  if (bytes.length > MAX_PATCH_FILE_BYTES) throw tooLarge(bytes.length); // it grew since the stat
  return { bytes, mode: stat.mode };
}

/**
 * Confines a path as spelled in the patch, refuses git dirs, and reads the file's state once through its handle (null
 * when absent: an Add File or Move to destination, whose missing parents are still confined).
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * using ws = openWorkspace(await Deno.makeTempDir());
 * (await lookupPath(ws, "./a.txt")).state; // null: a.txt does not exist yet
 * ```
 */
export async function lookupPath(ws: Workspace, spelled: string): Promise<PathState> {
  if (spelled.endsWith("/")) {
    throw new ToolError("INVALID_ARGUMENT", `${spelled} names a directory; a patch operates on files`, {
      details: { path: spelled },
    });
  }
  for (let attempt = 1;; attempt++) {
    try {
      using target = ws.open(spelled, { expect: "any", allowMissing: true });
      const gitDir = protectingGitDir(ws, spelled, target);
      if (gitDir !== null) {
        throw new ToolError(
          "PATH_PROTECTED",
          `${target.rel} is inside the git dir ${gitDir}; apply_patch never writes there ` +
            "(a planted hook or config would later run outside any sandbox)",
          { details: { path: target.rel, git_dir: gitDir } },
        );
      }
      return { rel: target.rel, state: target.exists ? await readState(target) : null };
    } catch (error) {
      // A path-based backend found the file replaced between check and read (a concurrent rename): look it up again.
      if (!(error instanceof PathChanged) || attempt === LOOKUP_ATTEMPTS) throw error;
    }
  }
}

/**
 * Looks up every path of the patch concurrently, keeping failures so that planning reports the first in patch order.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * using ws = openWorkspace(await Deno.makeTempDir());
 * const look = await lookupPaths(ws, { ops: [{ kind: "delete", path: "../x", line: 2 }] });
 * await look("../x").catch((error) => error.code); // "PATH_OUTSIDE_WORKSPACE"
 * ```
 */
export async function lookupPaths(ws: Workspace, patch: Patch): Promise<LookupPath> {
  const spelled = [
    ...new Set(patch.ops.flatMap((op) => op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path])),
  ];
  const found = new Map<string, Promise<PathState>>();
  await eachLimited(spelled, LOOKUP_CONCURRENCY, async (name) => {
    const result = lookupPath(ws, name);
    found.set(name, result);
    await result.catch(() => {}); // handled here, observed when its operation is planned
  });
  return (name) => found.get(name)!;
}
