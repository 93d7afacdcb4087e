import { assertEquals } from "../../testing/assert.ts";
import { cutPatch, type DiffPosition, KEPT_PATCH_BYTES, overflowAt, type PatchLine, PatchLines } from "./diff_page.ts";

const encode = (text: string) => new TextEncoder().encode(text);

const PATCH = [
  "diff --git a/a b/a",
  "--- a/a",
  "+++ b/a",
  "@@ -1 +1 @@",
  "-one",
  "+ONE",
  "@@ -9 +9 @@",
  "-nine",
  "+NINE",
  "diff --git a/b b/b",
  "Binary files a/b and b/b differ",
  "diff --git a/c b/c",
  "--- a/c",
  "+++ b/c",
  "@@ -1,2 +1,2 @@",
  " keep",
  "-x",
  "+y",
  "",
].join("\n");

function read(after: DiffPosition | null, maxChars = 100_000, maxBytes = 100_000): PatchLines {
  const lines = new PatchLines(after, maxChars, maxBytes);
  const bytes = encode(PATCH);
  for (let i = 0; i < bytes.length; i += 5) if (!lines.push(bytes.subarray(i, i + 5))) break;
  lines.end();
  return lines;
}

const texts = (lines: readonly PatchLine[]) => lines.map((line) => line.text);

Deno.test("PatchLines numbers each line in its file's section and marks file and hunk starts", () => {
  const all = read(null);
  assertEquals(all.complete, true);
  assertEquals(all.lines.length, 18);
  assertEquals(all.lines.filter((line) => line.starts === "file").map((line) => line.file), [0, 1, 2]);
  assertEquals(all.lines.filter((line) => line.starts === "hunk").map((line) => [line.file, line.line]), [
    [0, 3],
    [0, 6],
    [2, 3],
  ]);
});

Deno.test("PatchLines resumes inside a file with its header and hunk line repeated, or at a later file", () => {
  const mid = read({ f: 0, n: 5 });
  assertEquals(mid.replayed, 4);
  assertEquals(texts(mid.lines.slice(0, 6)), [
    "diff --git a/a b/a",
    "--- a/a",
    "+++ b/a",
    "@@ -1 +1 @@",
    "+ONE",
    "@@ -9 +9 @@",
  ]);
  assertEquals(mid.lines.slice(0, 4).map((line) => line.starts), [null, null, null, null]);
  const atHunk = read({ f: 0, n: 6 });
  assertEquals([atHunk.replayed, atHunk.lines[3].text], [3, "@@ -9 +9 @@"]);
  const past = read({ f: 0, n: 9 }); // after the last line of file 0: file 1 is next, nothing repeated
  assertEquals([past.replayed, past.lines[0].text], [0, "diff --git a/b b/b"]);
  assertEquals(read({ f: 7, n: 0 }).lines, []);
});

Deno.test("PatchLines stops once its bound is passed, keeping the line that passed it", () => {
  const bounded = read(null, 100_000, 30);
  assertEquals([bounded.complete, texts(bounded.lines)], [false, ["diff --git a/a b/a", "--- a/a", "+++ b/a"]]);
  const cut = new PatchLines(null, 100_000, 100_000);
  cut.push(encode("diff --git a/x b/x\n+" + "z".repeat(5000) + "\n"));
  cut.end();
  assertEquals(cut.lines[1].text.length, 4097);
  assertEquals(cut.lines[1].text.endsWith("…"), true);
});

Deno.test("cutPatch keeps whole files, else whole hunks, else whole lines, filling at least half the page", () => {
  const lines = read(null).lines;
  const cut = (budget: number, replayed = 0, of = lines) =>
    cutPatch(of, overflowAt(of, [[budget, () => 1]]), overflowAt(of, [[budget / 2, () => 1]]), replayed);
  assertEquals(cut(100), 18);
  assertEquals(cut(14), 11); // file c does not fit: files a and b
  assertEquals(cut(8), 6); // file a alone does not fit: its first hunk
  assertEquals(cut(5), 5); // its first hunk does not fit: whole lines
  assertEquals(cut(13), 11); // c's start keeps the page over half full
  assertEquals(cut(0), 1); // at least one line
  assertEquals(cutPatch(lines, overflowAt(lines, [[100, () => 1], [3, () => 1]]), 1, 0), 3); // the tighter budget
  // File a (9 lines) then b: with room for 17, c's start (line 11) leaves it over half full.
  assertEquals(cut(17), 11);
  // With room for 30 lines of a longer patch whose second file is large, the page is filled by its hunks.
  const big = [
    ...lines.slice(0, 3),
    { text: "diff --git a/d b/d", file: 3, line: 0, starts: "file" as const },
    ...Array.from({ length: 10 }, (_, k) => [
      { text: "@@ hunk @@", file: 3, line: 1 + 3 * k, starts: "hunk" as const },
      { text: "-x", file: 3, line: 2 + 3 * k, starts: null },
      { text: "+y", file: 3, line: 3 + 3 * k, starts: null },
    ]).flat(),
  ];
  assertEquals(cut(20, 0, big), 19); // not 3: d's hunks fill the page
  // One hunk larger than the page: its lines fill the page rather than ending it before the file.
  const single = [...big.slice(0, 5), ...Array.from({ length: 30 }, (_, k) => ({ ...big[5], line: 3 + k }))];
  assertEquals(cut(20, 0, single), 20);
  const resumed = read({ f: 0, n: 5 });
  assertEquals(cut(2, resumed.replayed, resumed.lines), 5); // repeated lines and one more
  // Resumed inside a hunk, the next hunk is a fine cut: some of the file's body comes before it.
  assertEquals(cut(7, resumed.replayed, resumed.lines), 5);
});

Deno.test("PatchLines.replay gives every position the page a new read gives, or null past what it holds", () => {
  const whole = new PatchLines(null, 100_000, 100_000, true);
  const bytes = encode(PATCH);
  for (let i = 0; i < bytes.length; i += 5) assertEquals(whole.push(bytes.subarray(i, i + 5)), true);
  whole.end();
  const all = whole.ahead!;
  assertEquals([whole.aheadEnds, texts(all)], [true, PATCH.split("\n").slice(0, -1)]);
  for (const line of all) {
    for (const [maxChars, maxBytes] of [[100_000, 100_000], [30, 100_000], [100_000, 12]]) {
      const after = { f: line.file, n: line.line };
      const fresh = read(after, maxChars, maxBytes);
      const replayed = PatchLines.replay(all, true, after, maxChars, maxBytes)!;
      assertEquals([replayed.lines, replayed.replayed, replayed.complete], [
        fresh.lines,
        fresh.replayed,
        fresh.complete,
      ]);
      // Lines that end short of a full page, with more of the patch unread, cannot give it.
      if (!fresh.complete) continue;
      assertEquals(PatchLines.replay(all.slice(0, -1), false, after, maxChars, maxBytes), null);
    }
  }
  assertEquals(PatchLines.replay(all, true, { f: 9, n: 0 }, 100, 100)!.lines, []);
  // Lines held from a later file's section on cannot give a page of an earlier file.
  const later = all.filter((line) => line.file >= 1);
  assertEquals(PatchLines.replay(later, true, { f: 0, n: 2 }, 100, 100), null);
  assertEquals(PatchLines.replay(later, true, { f: 1, n: 2 }, 100, 100)!.lines, read({ f: 1, n: 2 }, 100, 100).lines);
});

/** A patch of one file with `lines` added lines of 1,023 characters. */
function bigPatch(lines: number): Uint8Array[] {
  const line = encode(`+${"x".repeat(1022)}\n`);
  return [encode("diff --git a/a b/a\n@@ -0,0 +1,9 @@\n"), ...Array.from({ length: lines }, () => line)];
}

Deno.test("PatchLines reads ahead until it has read eight times what filled its page, holding what it read", () => {
  const read = new PatchLines(null, 10_000, 100_000, true);
  let pushes = 0;
  for (const chunk of bigPatch(1000)) {
    pushes++;
    if (!read.push(chunk)) break;
  }
  read.end();
  // The page is full at its tenth body line, with 10,275 characters read; at eight times that, 81 body lines are read.
  const { lines, ahead, aheadEnds, complete } = read;
  assertEquals([lines.length, ahead!.length, pushes, aheadEnds, complete], [12, 83, 82, false, false]);
  const short = new PatchLines(null, 10_000, 100_000, true);
  for (const chunk of bigPatch(20)) assertEquals(short.push(chunk), true);
  short.end();
  assertEquals([short.ahead!.length, short.aheadEnds, short.complete], [22, true, false]);
});

Deno.test("PatchLines holds no read-ahead past KEPT_PATCH_BYTES, and none when a page deep in a file passes it", () => {
  const perLine = 64 + 2 * 1023;
  const bound = Math.floor(KEPT_PATCH_BYTES / perLine);
  const deep = new PatchLines({ f: 0, n: bound + 10 }, 10_000, 100_000, true);
  for (const chunk of bigPatch(bound + 100)) if (!deep.push(chunk)) break;
  assertEquals(deep.ahead, null);
  assertEquals(deep.lines.length > 0, true);
  const wide = new PatchLines({ f: 0, n: bound - 200 }, 100_000, 1_000_000, true);
  let stopped = false;
  for (const chunk of bigPatch(4 * bound)) {
    if (!wide.push(chunk)) {
      stopped = true;
      break;
    }
  }
  assertEquals([stopped, wide.aheadEnds], [true, false]);
  assertEquals(wide.ahead!.length < bound + 10, true, `${wide.ahead!.length} lines held`);
});
