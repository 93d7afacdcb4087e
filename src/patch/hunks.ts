import { ToolError } from "../errors.ts";
import type { LineIndex } from "./line_index.ts";
import type { Hunk } from "./parse.ts";
import { Haystack, NORMALISERS, PASS_DESCRIPTIONS, type SeekResult } from "./seek.ts";

/** Lines of the file shown around the nearest candidate of a missed hunk. */
export const NEAREST_CONTEXT_LINES = 2;
/** Places listed for an ambiguous hunk. */
export const MAX_AMBIGUOUS_SHOWN = 5;
/** Hunk lines scored when looking for the nearest candidate (keeps a miss in a huge file cheap). */
const NEAREST_SCORED_LINES = 12;
const NEAREST_PREFIX_LINES = 3;
const MIN_SHARED_PREFIX = 4;

// deno-lint-ignore no-control-regex -- making control characters visible is the point
const INVISIBLE = /[\t\r\u00A0\x0b\x0c\x85\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]/g;
/** The signs of the commonest invisible characters; the others show their code point. */
const INVISIBLE_SIGNS: Record<string, string> = { "\t": "→", "\r": "␍", "\u00A0": "⍽" };

/** A changed region, in 0-based line indexes of the old and the new lines. */
export interface Region {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** The outcome of applying one file's hunks. */
export interface NewText {
  text: string;
  added: number;
  removed: number;
  regions: Region[];
  warnings: string[];
}

/** The hunk a diagnostic is about, and the file it is matched in. */
interface Site {
  label: string;
  hay: Haystack;
  hunk: Hunk;
  path: string;
  order: number;
}

interface Placement {
  start: number;
  oldLength: number;
  replacement: string[];
  order: number;
}

/**
 * Shows tabs, CR, NBSP, other Unicode spaces and separators, and trailing spaces, so an agent sees why a line missed.
 * @example
 * ```ts
 * visible("a\tb \u00a0"); // "a→b·⍽"
 * ```
 */
export function visible(line: string): string {
  const body = line.replace(/ +$/, (spaces) => "·".repeat(spaces.length));
  return body.replace(
    INVISIBLE,
    (ch) => INVISIBLE_SIGNS[ch] ?? `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`,
  );
}

/** Where a pure addition without anchor goes: before the final empty line a trailing newline leaves. */
function endInsertPoint(lines: LineIndex): number {
  return lines.equals(lines.count - 1, "") ? lines.count - 1 : lines.count;
}

/**
 * Applies one Update File section's `hunks` to `lines`, or throws PATCH_CONTEXT_NOT_FOUND, PATCH_CONTEXT_AMBIGUOUS or
 * PATCH_ALREADY_APPLIED saying why a hunk does not fit. Hunks are searched in order, each after the previous (else in
 * the whole file, if found there once without overlap); a hunk without anchor must match once. The first `@@` anchor
 * must occur once after the previous hunk, each further anchor is its first occurrence after the one before, and the
 * hunk is its first match at or after the last anchor. A pure addition goes right after its last anchor, or at the
 * end of the file without one.
 * @example
 * ```ts
 * import { LineIndex } from "./line_index.ts";
 * import { parsePatch } from "./parse.ts";
 * const [op] = parsePatch("*** Begin Patch\n*** Update File: x.txt\n@@\n-b\n+B\n*** End Patch").ops;
 * if (op.kind === "update") computeNewText(new LineIndex("a\nb\n"), op.hunks, "x.txt").text; // "a\nB\n"
 * ```
 */
export function computeNewText(lines: LineIndex, hunks: readonly Hunk[], path: string): NewText {
  const hay = new Haystack(lines);
  const placements: Placement[] = [];
  const warnings: string[] = [];
  let added = 0;
  let removed = 0;
  let from = 0;
  hunks.forEach((sent, order) => {
    const label = `${path} hunk ${order + 1} (patch line ${sent.line})`;
    const hunk = withoutTrailingBlankContext(sent, hay);
    const site = { label, hay, hunk, path, order };
    const oldSide = hunk.lines.filter((line) => line.kind !== "add").map((line) => line.text);
    const newSide = hunk.lines.filter((line) => line.kind !== "remove").map((line) => line.text);
    added += hunk.lines.filter((line) => line.kind === "add").length;
    removed += hunk.lines.filter((line) => line.kind === "remove").length;
    const warn = (result: Extract<SeekResult, { kind: "found" }>, what: string) => {
      if (result.pass !== "exact") {
        warnings.push(`${label}: ${what} matched ${PASS_DESCRIPTIONS[result.pass]} (line ${result.index + 1})`);
      }
    };
    let anchorIndex = -1;
    for (const [k, anchor] of hunk.anchors.entries()) {
      const start = k === 0 ? from : anchorIndex + 1;
      const result = hay.seek([anchor], start, k === 0 ? "unique" : "first", false);
      if (result.kind === "none") throw anchorNotFound(site, anchor, start);
      if (result.kind === "ambiguous") throw ambiguous(site, `the @@ anchor ${JSON.stringify(anchor)}`, result);
      if (result.pass === "unicode") warn(result, `the @@ anchor ${JSON.stringify(anchor)}`);
      anchorIndex = result.index;
    }
    let start: number;
    if (oldSide.length === 0) {
      start = hunk.eof || anchorIndex < 0 ? endInsertPoint(lines) : anchorIndex + 1;
    } else {
      let result = anchorIndex >= 0
        ? hay.seek(oldSide, anchorIndex, "first", hunk.eof)
        : hay.seek(oldSide, from, "unique", hunk.eof);
      if (result.kind === "none" && anchorIndex < 0 && from > 0) {
        const anywhere = hay.seek(oldSide, 0, "unique", hunk.eof);
        if (
          anywhere.kind !== "none" &&
          !(anywhere.kind === "found" && overlaps(placements, anywhere.index, oldSide.length))
        ) {
          result = anywhere;
        }
      }
      if (result.kind === "ambiguous") throw ambiguous(site, "the hunk's context", result);
      if (result.kind === "none") {
        const applied = newSide.length > 0 ? hay.seek(newSide, 0, "unique", hunk.eof) : { kind: "none" as const };
        if (applied.kind === "found" && newSide.join("\n") !== oldSide.join("\n")) {
          throw new ToolError(
            "PATCH_ALREADY_APPLIED",
            `${label} is already applied: its result lines are present at line ${
              applied.index + 1
            } and its old lines are not. Nothing was written.`,
            { details: { path, hunk: order + 1, patch_line: hunk.line, line: applied.index + 1 } },
          );
        }
        throw contextNotFound(site, oldSide, anchorIndex >= 0 ? anchorIndex : 0);
      }
      warn(result, "the hunk's context");
      start = result.index;
    }
    placements.push({ start, oldLength: oldSide.length, replacement: replacementFor(hunk, lines, start), order });
    if (oldSide.length > 0) from = start + oldSide.length;
  });
  return { ...assemble(lines, placements), added, removed, warnings };
}

/** Drops trailing empty context lines that stop `hunk` matching (agents leave one before the next `***` header). */
function withoutTrailingBlankContext(hunk: Hunk, hay: Haystack): Hunk {
  let end = hunk.lines.length;
  while (end > 0 && hunk.lines[end - 1].kind === "context" && hunk.lines[end - 1].text === "") end--;
  if (end === hunk.lines.length || end === 0) return hunk;
  const oldSide = hunk.lines.filter((line) => line.kind !== "add").map((line) => line.text);
  if (hay.seek(oldSide, 0, "first", hunk.eof).kind !== "none") return hunk;
  return { ...hunk, lines: hunk.lines.slice(0, end) };
}

function overlaps(placements: readonly Placement[], start: number, length: number): boolean {
  return placements.some((p) => start < p.start + p.oldLength && p.start < start + length);
}

/** The new lines for one hunk: the file's own context lines are kept as they are, even after a tolerant match. */
function replacementFor(hunk: Hunk, lines: LineIndex, start: number): string[] {
  const out: string[] = [];
  let at = start;
  for (const line of hunk.lines) {
    if (line.kind === "context") out.push(lines.line(at++));
    else if (line.kind === "remove") at++;
    else out.push(line.text);
  }
  return out;
}

function assemble(lines: LineIndex, placements: Placement[]): { text: string; regions: Region[] } {
  const sorted = [...placements].sort((a, b) => a.start - b.start || a.order - b.order);
  const chunks: string[] = []; // each chunk is one or more lines joined with \n
  const regions: Region[] = [];
  let at = 0;
  let written = 0;
  for (const p of sorted) {
    if (p.start > at) {
      chunks.push(lines.joined(at, p.start));
      written += p.start - at;
    }
    regions.push({
      oldStart: p.start,
      oldEnd: p.start + p.oldLength,
      newStart: written,
      newEnd: written + p.replacement.length,
    });
    if (p.replacement.length > 0) {
      chunks.push(p.replacement.join("\n"));
      written += p.replacement.length;
    }
    at = p.start + p.oldLength;
  }
  if (at < lines.count) chunks.push(lines.joined(at, lines.count));
  return { text: chunks.join("\n"), regions };
}

function excerpt(hay: Haystack, start: number, end: number, mark?: (i: number) => string): string {
  const rows: string[] = [];
  const width = String(end).length;
  for (let i = Math.max(0, start); i < Math.min(end, hay.lines.count); i++) {
    rows.push(`${mark ? mark(i) : " "} ${String(i + 1).padStart(width)}| ${visible(hay.lines.line(i))}`);
  }
  return rows.join("\n");
}

/** Comparison used only to find the nearest candidate: punctuation normalised, all whitespace dropped. */
function loose(line: string): string {
  return NORMALISERS.unicode(line).replace(/\s+/g, "");
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The window of the file most like `oldSide`: most lines equal under loose(), else the longest shared prefix. */
function nearestWindow(hay: Haystack, oldSide: readonly string[]): { index: number; score: number } {
  const view = hay.lines.all().map(loose);
  const needle = oldSide.slice(0, NEAREST_SCORED_LINES).map(loose);
  // The needle indexes of each line; blank lines say nothing about where a hunk belongs.
  const positions = Map.groupBy([...needle.keys()].filter((k) => needle[k] !== ""), (k) => needle[k]);
  const scores = new Map<number, number>();
  view.forEach((line, i) => {
    for (const k of positions.get(line) ?? []) {
      const index = i - k;
      if (index >= 0) scores.set(index, (scores.get(index) ?? 0) + 1);
    }
  });
  let best = { index: -1, score: 0 };
  for (const [index, score] of scores) {
    if (score > best.score || (score === best.score && index < best.index)) best = { index, score };
  }
  if (best.index >= 0) return best;
  let longest = 0;
  for (const [k, want] of needle.slice(0, NEAREST_PREFIX_LINES).entries()) {
    if (want === "") continue;
    view.forEach((line, i) => {
      const shared = commonPrefix(line, want);
      if (shared > longest && shared >= Math.min(MIN_SHARED_PREFIX, want.length) && i - k >= 0) {
        longest = shared;
        best = { index: i - k, score: 0 };
      }
    });
  }
  return best;
}

function contextNotFound({ label, hay, hunk, path, order }: Site, oldSide: readonly string[], from: number): ToolError {
  const { index } = nearestWindow(hay, oldSide);
  const expected = oldSide.map((line) => `    | ${visible(line)}`).join("\n");
  const parts = [
    `${label}: context not found${from > 0 ? ` after line ${from + 1}` : ""}${
      hunk.eof ? " at the end of the file" : ""
    }.`,
    `Expected these lines (from the patch; → tab, · trailing space, ⍽ NBSP, ␍ CR):\n${expected}`,
  ];
  let nearest: Record<string, unknown> | null = null;
  if (index >= 0) {
    const start = Math.max(0, index - NEAREST_CONTEXT_LINES);
    const end = Math.min(hay.lines.count, index + oldSide.length + NEAREST_CONTEXT_LINES);
    const mark = (i: number) => {
      const k = i - index;
      if (k < 0 || k >= oldSide.length) return " ";
      return hay.lines.equals(i, oldSide[k]) ? "=" : loose(hay.lines.line(i)) === loose(oldSide[k]) ? "~" : "!";
    };
    parts.push(
      `Nearest lines in the file (lines ${index + 1}-${
        index + oldSide.length
      }; = same, ~ differs only in whitespace or punctuation, ! differs):\n${excerpt(hay, start, end, mark)}`,
    );
    nearest = { start_line: start + 1, lines: hay.lines.all().slice(start, end) };
  } else {
    parts.push("No line of the file resembles the hunk, even after normalising whitespace and punctuation.");
  }
  return new ToolError("PATCH_CONTEXT_NOT_FOUND", parts.join("\n"), {
    details: { path, hunk: order + 1, patch_line: hunk.line, expected: oldSide, nearest },
  });
}

function anchorNotFound({ label, hay, hunk, path }: Site, anchor: string, from: number): ToolError {
  const { index } = nearestWindow(hay, [anchor]);
  const near = index >= 0 ? `\nA similar line is at line ${index + 1}:\n${excerpt(hay, index, index + 1)}` : "";
  return new ToolError(
    "PATCH_CONTEXT_NOT_FOUND",
    `${label}: the @@ anchor line ${JSON.stringify(visible(anchor))} does not occur${
      from > 0 ? ` after line ${from}` : ""
    }.${near}`,
    { details: { path, patch_line: hunk.line, anchor, nearest_line: index >= 0 ? index + 1 : null } },
  );
}

function ambiguous(
  { label, hay, hunk, path }: Site,
  what: string,
  result: Extract<SeekResult, { kind: "ambiguous" }>,
): ToolError {
  const lines = result.indexes.map((i) => i + 1);
  const shown = result.indexes.slice(0, MAX_AMBIGUOUS_SHOWN).map((i) => excerpt(hay, i, i + 1)).join("\n");
  const more = lines.length > MAX_AMBIGUOUS_SHOWN ? `\n  … and ${lines.length - MAX_AMBIGUOUS_SHOWN} more` : "";
  const how = result.pass === "exact" ? "" : ` (${PASS_DESCRIPTIONS[result.pass]})`;
  return new ToolError(
    "PATCH_CONTEXT_AMBIGUOUS",
    `${label}: ${what} matches ${lines.length} places${how}, starting at lines ${
      lines.slice(0, MAX_AMBIGUOUS_SHOWN).join(", ")
    }${more ? ", …" : ""}:\n${shown}${more}`,
    { details: { path, patch_line: hunk.line, lines } },
  );
}
