import { ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { type Change, type FileState, sameState } from "./change.ts";
import { computeNewText, type Region } from "./hunks.ts";
import { LineIndex } from "./line_index.ts";
import { type LookupPath, lookupPaths } from "./lookup.ts";
import type { FileOp, Patch } from "./parse.ts";
import type { PreviewFile } from "./preview.ts";
import { decodeText, encodeText } from "./text_file.ts";

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

interface Slot {
  rel: string;
  original: FileState | null;
  current: FileState | null;
}

type UpdateOp = Extract<FileOp, { kind: "update" }>;

const encoder = new TextEncoder();

function lineCount(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) if (byte === 0x0a) count++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? count + 1 : count;
}

/** Decodes for the preview only; binary content is shown as such instead of failing. */
function previewLines(bytes: Uint8Array, rel: string): LineIndex | null {
  try {
    return new LineIndex(decodeText(bytes, rel).text);
  } catch {
    return null;
  }
}

/** The current content of the file an Update or Delete works on; NOT_FOUND when there is none. */
function existing(op: FileOp, target: Slot): FileState {
  if (target.current !== null) return target.current;
  const why = target.original === null ? "does not exist" : "was deleted or moved away earlier in this patch";
  throw new ToolError(
    "NOT_FOUND",
    `${target.rel} ${why}, so it cannot be ${op.kind === "delete" ? "deleted" : "updated"}`,
    {
      details: { path: target.rel },
    },
  );
}

function planAdd(lines: readonly string[], target: Slot, plan: Plan): void {
  if (target.current !== null) {
    throw new ToolError("ALREADY_EXISTS", `${target.rel} already exists; *** Add File never overwrites`, {
      hint: "Use *** Update File to change an existing file (or *** Delete File first to replace it).",
      details: { path: target.rel },
    });
  }
  const text = new LineIndex([...lines, ""].join("\n"));
  target.current = { bytes: encoder.encode(text.text), mode: null };
  plan.files.push({ op: "add", path: target.rel, moved_to: null, added: lines.length, removed: 0 });
  plan.previews.push({
    oldPath: null,
    newPath: target.rel,
    oldLines: new LineIndex(""),
    newLines: text,
    regions: [{ oldStart: 0, oldEnd: 0, newStart: 0, newEnd: text.count }],
  });
}

function planDelete(source: FileState, target: Slot, plan: Plan): void {
  target.current = null;
  const oldLines = previewLines(source.bytes, target.rel);
  plan.files.push({ op: "delete", path: target.rel, moved_to: null, added: 0, removed: lineCount(source.bytes) });
  plan.previews.push({
    oldPath: target.rel,
    newPath: null,
    oldLines,
    newLines: new LineIndex(""),
    regions: oldLines ? [{ oldStart: 0, oldEnd: oldLines.count, newStart: 0, newEnd: 0 }] : [],
  });
}

/** An Update File, with or without hunks, in place or onto `destination` (a Move to). */
function planUpdate(op: UpdateOp, source: FileState, target: Slot, destination: Slot, plan: Plan): void {
  if (destination !== target && destination.current !== null) {
    throw new ToolError("ALREADY_EXISTS", `cannot move ${target.rel} to ${destination.rel}: the destination exists`, {
      hint: "Choose a destination that does not exist, or *** Delete File it first in the same patch.",
      details: { path: destination.rel, source: target.rel },
    });
  }
  let bytes = source.bytes;
  let added = 0;
  let removed = 0;
  let oldLines: LineIndex | null;
  let newLines: LineIndex | null;
  let regions: Region[] = [];
  if (op.hunks.length > 0) {
    const file = decodeText(source.bytes, target.rel);
    oldLines = new LineIndex(file.text);
    const result = computeNewText(oldLines, op.hunks, target.rel);
    plan.warnings.push(...result.warnings);
    bytes = encodeText({ ...file, text: result.text });
    ({ added, removed, regions } = result);
    newLines = new LineIndex(result.text);
  } else {
    oldLines = newLines = previewLines(source.bytes, target.rel); // a pure rename: any bytes, verbatim
  }
  target.current = null;
  destination.current = { bytes, mode: source.mode };
  const moved = destination !== target;
  plan.files.push({
    op: moved ? "move" : "update",
    path: target.rel,
    moved_to: moved ? destination.rel : null,
    added,
    removed,
  });
  plan.previews.push({ oldPath: target.rel, newPath: destination.rel, oldLines, newLines, regions });
}

/**
 * Plans `ops` without writing anything: they apply in order to a virtual view of the tree, so a patch may touch one
 * path several times (update it twice, delete then add it, move onto a path deleted earlier). Throws the first error in
 * patch order (PATCH_CONTEXT_*, NOT_FOUND, ALREADY_EXISTS, NOT_UTF8, or the lookup's own). Pure: tests give it a map.
 * @example
 * ```ts
 * const files = new Map([["a.txt", { bytes: new TextEncoder().encode("a\n"), mode: 0o644 }]]);
 * const look = (spelled: string) => Promise.resolve({ rel: spelled, state: files.get(spelled) ?? null });
 * const plan = await planOps([{ kind: "delete", path: "a.txt", line: 2 }], look);
 * ```
 */
export async function planOps(ops: readonly FileOp[], look: LookupPath): Promise<Plan> {
  // The tree as the operations so far left it, one slot per real path.
  const slots = new Map<string, Slot>();
  const slot = async (spelled: string) => {
    const { rel, state } = await look(spelled);
    if (!slots.has(rel)) slots.set(rel, { rel, original: state, current: state });
    return slots.get(rel)!;
  };
  const plan: Plan = { changes: [], files: [], warnings: [], previews: [] };
  for (const op of ops) {
    const target = await slot(op.path);
    if (op.kind === "add") {
      planAdd(op.lines, target, plan);
      continue;
    }
    const source = existing(op, target); // before the destination is looked at: NOT_FOUND is the first error
    if (op.kind === "delete") planDelete(source, target, plan);
    else planUpdate(op, source, target, op.moveTo === null ? target : await slot(op.moveTo), plan);
  }
  plan.changes = [...slots.values()]
    .filter((s) => !sameState(s.original, s.current))
    .map((s) => ({ rel: s.rel, before: s.original, after: s.current }));
  return plan;
}

/**
 * Plans `patch` against the workspace: every path looked up (lookup.ts), then planOps; writes nothing.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * const ws = openWorkspace(await Deno.makeTempDir());
 * (await planPatch(ws, { ops: [{ kind: "add", path: "a.txt", lines: ["a"], line: 2 }] })).files;
 * ```
 */
export async function planPatch(ws: Workspace, patch: Patch): Promise<Plan> {
  return await planOps(patch.ops, await lookupPaths(ws, patch));
}
