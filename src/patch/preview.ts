import { structuredPatch } from "diff";
import type { Region } from "./hunks.ts";
import type { LineIndex } from "./line_index.ts";

/** Upper bound of the diff preview, in UTF-8 bytes. */
export const MAX_DIFF_BYTES = 12 * 1024;
/** Unchanged lines shown around each change. */
export const DIFF_CONTEXT_LINES = 3;
/** Lines of one changed region fed to the differ at most (larger regions are cut and marked truncated). */
const MAX_REGION_LINES = 2000;

/** One file's change for the preview; null paths are /dev/null, null lines a binary file. */
export interface PreviewFile {
  oldPath: string | null;
  newPath: string | null;
  oldLines: LineIndex | null;
  newLines: LineIndex | null;
  regions: readonly Region[];
}

const encoder = new TextEncoder();

/** Merges regions whose context windows touch. */
function clusters(regions: readonly Region[]): Region[] {
  const out: Region[] = [];
  for (const region of regions) {
    const last = out[out.length - 1];
    if (last && region.oldStart - last.oldEnd <= 2 * DIFF_CONTEXT_LINES) {
      out[out.length - 1] = { ...last, oldEnd: region.oldEnd, newEnd: region.newEnd };
    } else out.push({ ...region });
  }
  return out;
}

function fileDiff(file: PreviewFile): { text: string; cut: boolean } {
  const header = `--- ${file.oldPath === null ? "/dev/null" : `a/${file.oldPath}`}\n+++ ${
    file.newPath === null ? "/dev/null" : `b/${file.newPath}`
  }\n`;
  const { oldLines, newLines } = file;
  if (oldLines === null || newLines === null) return { text: `${header}Binary content not shown\n`, cut: false };
  let cut = false;
  const rows: string[] = [];
  for (const region of clusters(file.regions)) {
    const oldFrom = Math.max(0, region.oldStart - DIFF_CONTEXT_LINES);
    const newFrom = region.newStart - (region.oldStart - oldFrom);
    let oldTo = Math.min(oldLines.count, region.oldEnd + DIFF_CONTEXT_LINES);
    let newTo = region.newEnd + (oldTo - region.oldEnd);
    if (oldTo - oldFrom > MAX_REGION_LINES || newTo - newFrom > MAX_REGION_LINES) {
      oldTo = Math.min(oldTo, oldFrom + MAX_REGION_LINES);
      newTo = Math.min(newTo, newFrom + MAX_REGION_LINES);
      cut = true;
    }
    const patch = structuredPatch(
      "a",
      "b",
      oldLines.segment(oldFrom, oldTo),
      newLines.segment(newFrom, newTo),
      undefined,
      undefined,
      { context: DIFF_CONTEXT_LINES },
    );
    for (const hunk of patch.hunks) {
      // Unified diff quirk: a range of zero lines names the line before it.
      const oldStart = hunk.oldStart + oldFrom - (hunk.oldLines === 0 ? 1 : 0);
      const newStart = hunk.newStart + newFrom - (hunk.newLines === 0 ? 1 : 0);
      rows.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
      rows.push(...hunk.lines);
    }
  }
  return { text: header + rows.map((row) => row + "\n").join(""), cut };
}

/**
 * A unified diff of `files` within MAX_DIFF_BYTES, run by the `diff` package on the changed regions only (so a one-line
 * edit in a 50 MB file diffs a few lines, not the whole file).
 * @example
 * ```ts
 * import { LineIndex } from "./line_index.ts";
 * const regions = [{ oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 2 }];
 * const [oldLines, newLines] = [new LineIndex("a\nb\n"), new LineIndex("a\nB\n")];
 * renderPreview([{ oldPath: "a.txt", newPath: "a.txt", oldLines, newLines, regions }]).truncated; // false
 * ```
 */
export function renderPreview(files: readonly PreviewFile[]): { diff: string; truncated: boolean } {
  let diff = "";
  let bytes = 0;
  let truncated = false;
  for (const file of files) {
    const { text, cut } = fileDiff(file);
    truncated ||= cut;
    const size = encoder.encode(text).length;
    if (bytes + size > MAX_DIFF_BYTES) {
      for (const line of text.split("\n")) {
        const lineBytes = encoder.encode(line).length + 1;
        if (bytes + lineBytes > MAX_DIFF_BYTES) break;
        diff += line + "\n";
        bytes += lineBytes;
      }
      return { diff, truncated: true };
    }
    diff += text;
    bytes += size;
  }
  return { diff, truncated };
}
