import { assert, assertEquals } from "../../testing/assert.ts";
import { KEPT_SEARCH_BYTES, type KeptSearch, replayKept, SearchReadAhead } from "./kept_search.ts";
import { MatchCollector, type MatchCollectorOptions, type SearchPosition } from "./match_collector.ts";

/** rg's `--json` lines for files of `lines` lines, every third a match, with `context` lines around each. */
function rgLines(files: { name: string; lines: number; binary?: boolean }[], context: number): string[] {
  const out: string[] = [];
  for (const file of files) {
    const path = { text: `./${file.name}` };
    out.push(JSON.stringify({ type: "begin", data: { path } }));
    for (let n = 1; n <= file.lines; n++) {
      const match = n % 3 === 0;
      const near = [-context, context].some((d) => (n + d) % 3 === 0) || context >= 3;
      if (!match && !(context > 0 && near)) continue;
      const data = {
        path,
        lines: { text: `line ${n} of ${file.name}${match ? " needle" : ""}\n` },
        line_number: n,
        submatches: match ? [{ start: 5, end: 11 }] : [],
      };
      out.push(JSON.stringify({ type: match ? "match" : "context", data }));
    }
    out.push(JSON.stringify({ type: "end", data: { path, binary_offset: file.binary ? 100 : null } }));
  }
  return out;
}

const FILES = [
  { name: "a.txt", lines: 20 },
  { name: "b/c.txt", lines: 31 },
  { name: "b/skipped.log", lines: 12 },
  { name: "b/late-binary.txt", lines: 9, binary: true },
  { name: "d.txt", lines: 3 },
  { name: "e.txt", lines: 40 },
];

function optionsFor(after: SearchPosition | null, context: number, maxResults: number): MatchCollectorOptions {
  return {
    rootAbs: "/ws",
    prefix: "src/",
    wanted: (below) => !below.endsWith(".log"),
    context,
    maxResults,
    after,
    trimTo: 4096,
  };
}

/** The page a new rg run gives: every line fed until the collector is done. */
function fresh(lines: string[], options: MatchCollectorOptions) {
  const collector = new MatchCollector(options);
  for (const line of lines) {
    if (collector.done) break;
    collector.add(JSON.parse(line));
  }
  return collector;
}

/** The read-ahead of a first page over `lines`: what it kept, and how many lines it read. */
function readAhead(lines: string[], options: MatchCollectorOptions): { kept: KeptSearch | null; read: number } {
  const collector = new MatchCollector(options);
  const ahead = new SearchReadAhead(options);
  let read = 0;
  while (read < lines.length && ahead.push(lines[read++], collector));
  return { kept: ahead.kept(collector, read === lines.length), read };
}

const pageOf = (collector: MatchCollector) => ({
  matches: collector.matches,
  beforePage: collector.beforePage,
  capped: collector.capped,
});

Deno.test("replayKept gives at every position the page a new run gives, or null past what is kept", () => {
  let replays = 0;
  for (const context of [0, 1, 3]) {
    const lines = rgLines(FILES, context);
    for (const maxResults of [1, 2, 5]) {
      const { kept } = readAhead(lines, optionsFor(null, context, maxResults));
      assert(kept !== null, "a first page that does not hold every match is kept");
      // Every match position (and one before all of them) as a later page's cursor.
      const positions = fresh(lines, optionsFor(null, context, 1000)).matches.map((m) => ({ p: m.path, l: m.line }));
      for (const after of [{ p: "src/a.txt", l: 0 }, ...positions]) {
        for (const pageSize of [1, 3]) {
          const options = optionsFor(after, context, pageSize);
          const replayed = replayKept(kept, options);
          const expected = fresh(lines, options);
          if (replayed === null) {
            assert(!kept.ends, `null only when the kept lines end early (${JSON.stringify(after)})`);
            continue;
          }
          assertEquals(pageOf(replayed), pageOf(expected), JSON.stringify({ context, maxResults, after }));
          assertEquals(replayed.done, expected.done);
          replays++;
        }
      }
    }
  }
  assert(replays > 100, `${replays} pages replayed`);
});

Deno.test("SearchReadAhead holds from the page's first file, reads eight times what filled the page, then stops", () => {
  const lines = rgLines(
    Array.from({ length: 200 }, (_, i) => ({ name: `f${String(i).padStart(3, "0")}`, lines: 6 })),
    0,
  );
  // Page 2 of one match a page: the run passes f000 and stops once it read eight times what filled its page.
  const { kept, read } = readAhead(lines, optionsFor({ p: "src/f000", l: 6 }, 0, 1));
  assert(kept !== null);
  assertEquals([kept.ends, JSON.parse(kept.lines[0]).data.path.text, kept.files[0].before], [false, "./f001", 2]);
  // The page is full at f001's second match (the one past the page): the seventh line.
  const toFill = lines.slice(0, 7).reduce((sum, line) => sum + line.length + 1, 0);
  const readChars = lines.slice(0, read).reduce((sum, line) => sum + line.length + 1, 0);
  assert(readChars >= 8 * toFill && readChars - lines[read - 1].length - 1 < 8 * toFill, `${readChars} vs ${toFill}`);
  // A replay past what was read gives null: that page runs rg again.
  assertEquals(replayKept(kept, optionsFor({ p: "src/f150", l: 3 }, 0, 1)), null);
  // The last page is not kept; nor is a page whose lines before its end pass the bound.
  assertEquals(readAhead(lines, optionsFor(null, 0, 10_000)).kept, null);
  // 120,000 match lines of about 300 estimated bytes: the 100,000 before the page pass KEPT_SEARCH_BYTES.
  assert(100_000 * 300 > KEPT_SEARCH_BYTES);
  const huge = rgLines([{ name: "big", lines: 360_000 }], 0);
  assertEquals(readAhead(huge, optionsFor({ p: "src/big", l: 300_000 }, 0, 1)).kept, null);
});
