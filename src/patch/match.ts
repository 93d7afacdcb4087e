/**
 * Matches a parsed patch against the workspace without writing anything:
 * every path confined, every file read once, every hunk located. The result
 * is the list of changes to commit, per-operation results, warnings and the
 * material for the diff preview.
 *
 * Operations apply in order to a virtual view of the tree, so a patch may
 * touch one path several times (update it twice, delete then add it, move
 * onto a path deleted earlier).
 *
 * @example
 * const plan = await matchPatch(ws, parsePatch(text));
 * await commitChanges(ws, plan.changes);
 */
import { eachLimited } from "../async/each_limited.ts";
import { ToolError } from "../errors.ts";
import { closeFd, readAllFd, reopenFd } from "../os/fs_at.ts";
import { O } from "../os/libc.ts";
import {
  confine,
  type ConfinedPath,
  openConfined,
  type OpenedPath,
  toRelative,
  type Workspace,
} from "../workspace/confine.ts";
import { gitDirContaining } from "../workspace/git_dirs.ts";
import { type Change, type FileState, sameBytes } from "./commit.ts";
import { applyHunks, type Region } from "./hunks.ts";
import type { FileOp, Patch } from "./parse.ts";
import type { PreviewFile } from "./preview.ts";
import { LineIndex } from "./line_index.ts";
import { decodeText, encodeText } from "./text_file.ts";

/** Largest file a patch may read or write, in bytes. */
export const MAX_PATCH_FILE_BYTES = 128 * 1024 * 1024;

/** What one operation did, as the tool reports it. */
export interface FileResult {
  op: "add" | "update" | "delete" | "move";
  path: string;
  moved_to: string | null;
  added: number;
  removed: number;
}

/** Everything needed to commit and report a patch. */
export interface Plan {
  changes: Change[];
  files: FileResult[];
  warnings: string[];
  previews: PreviewFile[];
}

/** One path's original and current (virtual) state. */
interface Slot {
  /** Workspace-relative real path: one slot per file, however the patch spells it. */
  rel: string;
  original: FileState | null;
  current: FileState | null;
}

const encoder = new TextEncoder();

/**
 * The git dir a path lies in, as spelled (a `.git` component, case-insensitively for case-folding file
 * systems) or as resolved (any git dir by what it is: a separate git dir, a bare repository), or null.
 */
function protectingGitDir(ws: Workspace, spelled: string, confined: ConfinedPath): string | null {
  if (spelled.split("/").some((part) => part.toLowerCase() === ".git")) return ".git";
  const gitDir = gitDirContaining(ws.root, confined.abs);
  return gitDir === null ? null : toRelative(ws, gitDir);
}

/**
 * The bytes and mode of the file `opened` pins, read through its fd: a directory swapped for a symlink after
 * the path was checked cannot make this read anything else.
 */
async function readState(opened: OpenedPath): Promise<FileState> {
  const { target: { rel }, stat } = opened;
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
  // The very inode stat'ed above, reopened from its fd rather than looked up again; O_NONBLOCK so no open can hang.
  const fd = reopenFd(opened.fd, O.RDONLY | O.NONBLOCK);
  try {
    const bytes = await readAllFd(fd);
    if (bytes.length > MAX_PATCH_FILE_BYTES) throw tooLarge(bytes.length); // it grew since the stat
    return { bytes, mode: stat.mode };
  } finally {
    closeFd(fd);
  }
}

function lineCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 0x0a) count++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? count + 1 : count;
}

function sameState(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.mode === b.mode && sameBytes(a.bytes, b.bytes);
}

/** Decodes for the preview only; binary content is shown as such instead of failing. */
function previewLines(bytes: Uint8Array, rel: string): LineIndex | null {
  try {
    return new LineIndex(decodeText(bytes, rel).text);
  } catch {
    return null;
  }
}

/** Files read at once while prefetching. */
const PREFETCH_CONCURRENCY = 16;

interface Lookup {
  confined: ConfinedPath;
  state: FileState | null;
}

/**
 * Confines a path as spelled in the patch, refuses `.git/`, and reads the file's current state (null when it
 * does not exist: an Add File or Move to destination, whose missing parents are still confined).
 */
async function lookup(ws: Workspace, spelled: string): Promise<Lookup> {
  if (spelled.endsWith("/")) {
    throw new ToolError("INVALID_ARGUMENT", `${spelled} names a directory; a patch operates on files`, {
      details: { path: spelled },
    });
  }
  let opened: OpenedPath | null = null;
  let confined: ConfinedPath;
  try {
    opened = await openConfined(ws, spelled);
    confined = opened.target;
  } catch (error) {
    if (!(error instanceof ToolError && error.code === "NOT_FOUND")) throw error;
    confined = await confine(ws, spelled, { allowMissing: true });
  }
  try {
    const gitDir = protectingGitDir(ws, spelled, confined);
    if (gitDir !== null) {
      throw new ToolError(
        "PATH_PROTECTED",
        `${confined.rel} is inside the git dir ${gitDir}; apply_patch never writes there ` +
          "(a planted hook or config would later run outside any sandbox)",
        { details: { path: confined.rel, git_dir: gitDir } },
      );
    }
    return { confined, state: opened === null ? null : await readState(opened) };
  } finally {
    if (opened !== null) closeFd(opened.fd);
  }
}

/**
 * Looks up every path of the patch concurrently. Failures are kept, not
 * thrown, so that planning reports the first failing operation in patch order.
 */
async function prefetch(ws: Workspace, patch: Patch): Promise<Map<string, Promise<Lookup>>> {
  const spelled = [
    ...new Set(patch.ops.flatMap((op) => op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path])),
  ];
  const out = new Map<string, Promise<Lookup>>();
  await eachLimited(spelled, PREFETCH_CONCURRENCY, async (name) => {
    const result = lookup(ws, name);
    result.catch(() => {}); // observed when its operation is planned
    out.set(name, result);
    await result.catch(() => {});
  });
  return out;
}

/**
 * Plans `patch` against the workspace; throws the first error found
 * (PATCH_CONTEXT_*, NOT_FOUND, ALREADY_EXISTS, NOT_UTF8, PATH_PROTECTED,
 * PATH_OUTSIDE_WORKSPACE, ...) before anything is written.
 *
 * @example
 * (await matchPatch(ws, patch)).files; // [{ op: "update", path: "a.txt", ... }]
 */
export async function matchPatch(ws: Workspace, patch: Patch): Promise<Plan> {
  const slots = new Map<string, Slot>();
  const files: FileResult[] = [];
  const warnings: string[] = [];
  const previews: PreviewFile[] = [];

  const prefetched = await prefetch(ws, patch);
  const slot = async (spelled: string): Promise<Slot> => {
    const { confined, state } = await prefetched.get(spelled)!;
    let found = slots.get(confined.rel);
    if (!found) {
      found = { rel: confined.rel, original: state, current: state };
      slots.set(confined.rel, found);
    }
    return found;
  };

  for (const op of patch.ops) await planOp(op);

  async function planOp(op: FileOp): Promise<void> {
    const target = await slot(op.path);
    if (op.kind === "add") {
      if (target.current !== null) {
        throw new ToolError("ALREADY_EXISTS", `${target.rel} already exists; *** Add File never overwrites`, {
          hint: "Use *** Update File to change an existing file (or *** Delete File first to replace it).",
          details: { path: target.rel },
        });
      }
      const lines = new LineIndex([...op.lines, ""].join("\n"));
      target.current = { bytes: encoder.encode(lines.text), mode: null };
      files.push({ op: "add", path: target.rel, moved_to: null, added: op.lines.length, removed: 0 });
      previews.push({
        oldPath: null,
        newPath: target.rel,
        oldLines: new LineIndex(""),
        newLines: lines,
        regions: [{ oldStart: 0, oldEnd: 0, newStart: 0, newEnd: lines.count }],
      });
      return;
    }
    const source = target.current;
    if (source === null) {
      const why = target.original === null ? "does not exist" : "was deleted or moved away earlier in this patch";
      throw new ToolError(
        "NOT_FOUND",
        `${target.rel} ${why}, so it cannot be ${op.kind === "delete" ? "deleted" : "updated"}`,
        {
          details: { path: target.rel },
        },
      );
    }
    if (op.kind === "delete") {
      target.current = null;
      const oldLines = previewLines(source.bytes, target.rel);
      files.push({ op: "delete", path: target.rel, moved_to: null, added: 0, removed: lineCount(source.bytes) });
      previews.push({
        oldPath: target.rel,
        newPath: null,
        oldLines,
        newLines: new LineIndex(""),
        regions: oldLines ? [{ oldStart: 0, oldEnd: oldLines.count, newStart: 0, newEnd: 0 }] : [],
      });
      return;
    }
    const destination = op.moveTo === null ? target : await slot(op.moveTo);
    if (destination !== target && destination.current !== null) {
      throw new ToolError("ALREADY_EXISTS", `cannot move ${target.rel} to ${destination.rel}: the destination exists`, {
        hint: "Choose a destination that does not exist, or *** Delete File it first in the same patch.",
        details: { path: destination.rel, source: target.rel },
      });
    }
    let bytes = source.bytes;
    let added = 0;
    let removed = 0;
    let oldLines: LineIndex | null = null;
    let newLines: LineIndex | null = null;
    let regions: Region[] = [];
    if (op.hunks.length > 0) {
      const file = decodeText(source.bytes, target.rel);
      oldLines = new LineIndex(file.text);
      const result = applyHunks(oldLines, op.hunks, target.rel);
      warnings.push(...result.warnings);
      bytes = encodeText({ ...file, text: result.text });
      ({ added, removed, regions } = result);
      newLines = new LineIndex(result.text);
    } else {
      oldLines = newLines = previewLines(source.bytes, target.rel);
    }
    target.current = null;
    destination.current = { bytes, mode: source.mode };
    const moved = destination !== target;
    files.push({
      op: moved ? "move" : "update",
      path: target.rel,
      moved_to: moved ? destination.rel : null,
      added,
      removed,
    });
    previews.push({ oldPath: target.rel, newPath: destination.rel, oldLines, newLines, regions });
  }

  const changes: Change[] = [...slots.values()]
    .filter((s) => !sameState(s.original, s.current))
    .map((s) => ({ rel: s.rel, before: s.original, after: s.current }));
  return { changes, files, warnings, previews };
}
