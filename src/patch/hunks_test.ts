import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { computeNewText, MAX_AMBIGUOUS_SHOWN, visible } from "./hunks.ts";
import { LineIndex } from "./line_index.ts";
import { parsePatch } from "./parse.ts";

/** The hunks of one Update File section made of `lines`. */
function hunks(...lines: string[]) {
  const [op] = parsePatch(["*** Begin Patch", "*** Update File: f.txt", ...lines, "*** End Patch"].join("\n")).ops;
  if (op.kind !== "update") throw new Error("not an update");
  return op.hunks;
}

const compute = (text: string, ...lines: string[]) => computeNewText(new LineIndex(text), hunks(...lines), "f.txt");

function refused(code: string, text: string, ...lines: string[]): ToolError {
  const error = assertThrows(() => compute(text, ...lines));
  assert(error instanceof ToolError, String(error));
  assertEquals(error.code, code, error.message);
  return error;
}

Deno.test("computeNewText replaces the hunk's lines and reports counts and the changed region", () => {
  const result = compute("a\nb\nc\n", "@@", " a", "-b", "+B1", "+B2", " c");
  assertEquals(result.text, "a\nB1\nB2\nc\n");
  assertEquals([result.added, result.removed], [2, 1]);
  assertEquals(result.regions, [{ oldStart: 0, oldEnd: 3, newStart: 0, newEnd: 4 }]);
  assertEquals(result.warnings, []);
});

Deno.test("hunks apply in order, and one found exactly once before the previous one still applies", () => {
  assertEquals(compute("a\nb\nc\nd\n", "@@", "-a", "+A", "@@", "-c", "+C").text, "A\nb\nC\nd\n");
  assertEquals(compute("a\nb\nc\nd\n", "@@", "-c", "+C", "@@", "-a", "+A").text, "A\nb\nC\nd\n");
  // Overlapping the previous hunk is not "elsewhere": the second hunk's lines were already consumed.
  refused("PATCH_CONTEXT_NOT_FOUND", "a\nb\nc\n", "@@", " a", "-b", "+B", "@@", " a", "-b", "+X");
});

Deno.test("a hunk without anchor must match exactly once", () => {
  const error = refused("PATCH_CONTEXT_AMBIGUOUS", "x\ny\nx\ny\n", "@@", "-x", "+z");
  assertEquals(error.details?.lines, [1, 3]);
  refused("PATCH_CONTEXT_NOT_FOUND", "x\n", "@@", "-nope", "+z");
});

Deno.test("anchors: the first must be unique, each further one narrows, and the hunk is the first match after them", () => {
  const file = "class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 1\n";
  assertEquals(
    compute(file, "@@ class B:", "@@   def f():", "-    return 1", "+    return 2").text,
    "class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 2\n",
  );
  refused("PATCH_CONTEXT_AMBIGUOUS", file, "@@   def f():", "-    return 1", "+    return 2");
  refused("PATCH_CONTEXT_NOT_FOUND", file, "@@ class C:", "-    return 1", "+    return 2");
});

Deno.test("a pure addition goes right after its anchor, else at the end (before the final newline's empty line)", () => {
  assertEquals(compute("a\nb\n", "@@ a", "+new").text, "a\nnew\nb\n");
  assertEquals(compute("a\nb\n", "@@", "+new").text, "a\nb\nnew\n");
  assertEquals(compute("a\nb", "@@", "+new").text, "a\nb\nnew");
});

Deno.test("*** End of File pins the hunk to the end of the file", () => {
  assertEquals(compute("x\ny\nx\n", "@@", "-x", "+X", "*** End of File").text, "x\ny\nX\n");
  refused("PATCH_CONTEXT_NOT_FOUND", "x\ny\n", "@@", "-x", "+X", "*** End of File");
});

Deno.test("a tolerant match is reported and keeps the file's own context lines", () => {
  const result = compute("\tkeep  \nold\n", "@@", " \tkeep", "-old", "+new");
  assertEquals(result.text, "\tkeep  \nnew\n");
  assertEquals(result.warnings.length, 1);
  assert(result.warnings[0].includes("f.txt hunk 1 (patch line 3)"), result.warnings[0]);
  assert(result.warnings[0].includes("ignoring trailing whitespace"), result.warnings[0]);
});

Deno.test("trailing blank context that stops a hunk from matching is dropped; one that matches is kept", () => {
  assertEquals(compute("a\nb\n", "@@", "-a", "+A", " ", "").text, "A\nb\n");
  assertEquals(compute("a\n\nb\n", "@@", "-a", "+A", " ").text, "A\n\nb\n");
});

Deno.test("old lines gone and new lines present is PATCH_ALREADY_APPLIED", () => {
  const error = refused("PATCH_ALREADY_APPLIED", "a\nB\nc\n", "@@", " a", "-b", "+B", " c");
  assertEquals(error.details?.line, 1);
});

Deno.test("a miss shows the expected lines and the nearest window, marked = same, ~ whitespace, ! differs", () => {
  const error = refused(
    "PATCH_CONTEXT_NOT_FOUND",
    "alpha\nbeta\ngamma \ndelta\n",
    "@@",
    " beta",
    " gamma",
    "-epsilon",
    "+zeta",
  );
  assert(error.message.includes("    | epsilon"), error.message);
  assert(error.message.includes("= 2| beta"), error.message);
  assert(error.message.includes("~ 3| gamma·"), error.message);
  assert(error.message.includes("! 4| delta"), error.message);
  assertEquals(error.details?.expected, ["beta", "gamma", "epsilon"]);
  assertEquals(error.details?.nearest, { start_line: 1, lines: ["alpha", "beta", "gamma ", "delta", ""] });
  const nothing = refused("PATCH_CONTEXT_NOT_FOUND", "a\n", "@@", "-zzzzzz", "+y");
  assert(nothing.message.includes("No line of the file resembles the hunk"), nothing.message);
});

Deno.test(`an ambiguous hunk lists its first ${MAX_AMBIGUOUS_SHOWN} places and counts the rest`, () => {
  const error = refused("PATCH_CONTEXT_AMBIGUOUS", "x\n".repeat(8), "@@", "-x", "+y");
  assert(error.message.includes("matches 8 places"), error.message);
  assert(error.message.includes("… and 3 more"), error.message);
  assertEquals(error.details?.lines, [1, 2, 3, 4, 5, 6, 7, 8]);
});

Deno.test("visible spells out tabs, CR, NBSP, other Unicode spaces and separators, and trailing spaces", () => {
  assertEquals(visible("a\tb\r"), "a→b␍");
  assertEquals(visible("a\u00a0b  "), "a⍽b··");
  assertEquals(visible("a\u2028b\u3000"), "a⟨U+2028⟩b⟨U+3000⟩");
  assertEquals(visible("plain"), "plain");
});
