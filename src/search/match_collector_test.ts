import { assert, assertEquals } from "../../testing/assert.ts";
import {
  MatchCollector,
  type MatchCollectorOptions,
  type RgMessage,
  TRIM_MARKER,
  trimLine,
} from "./match_collector.ts";

const OPTIONS: MatchCollectorOptions = {
  rootAbs: "/repo",
  prefix: "src/",
  wanted: () => true,
  context: 0,
  maxResults: 10,
  after: null,
  trimTo: 4096,
};

/** rg's messages for one file: its lines as [number, text, matching]; `binary` ends it as a binary file. */
function file(name: string, lines: [number, string, boolean][], binary = false): RgMessage[] {
  const path = { text: name };
  return [
    { type: "begin", data: { path } },
    ...lines.map(([line_number, text, matching]): RgMessage => ({
      type: matching ? "match" : "context",
      data: { path, lines: { text: `${text}\n` }, line_number, submatches: matching ? [{ start: 1, end: 2 }] : [] },
    })),
    { type: "end", data: { path, binary_offset: binary ? 100 : null } },
  ];
}

function collect(options: Partial<MatchCollectorOptions>, messages: RgMessage[]): MatchCollector {
  const collector = new MatchCollector({ ...OPTIONS, ...options });
  for (const message of messages) {
    if (collector.done) break;
    collector.add(message);
  }
  return collector;
}

Deno.test("MatchCollector: a match gets its context lines before and after, within its file", () => {
  const collector = collect({ context: 1 }, [
    ...file("a.ts", [[1, "one", false], [2, "two", true], [3, "three", false]]),
    ...file("b.ts", [[1, "uno", true]]),
  ]);
  assertEquals(collector.matches, [
    { path: "src/a.ts", line: 2, column: 2, text: "two", before: ["one"], after: ["three"] },
    { path: "src/b.ts", line: 1, column: 2, text: "uno", before: [], after: [] },
  ]);
  assert(collector.sawMessage && !collector.capped && !collector.done);
});

Deno.test("MatchCollector: matches up to the resume position are counted, not kept", () => {
  const collector = collect({ after: { p: "src/b.ts", l: 2 } }, [
    ...file("a.ts", [[5, "x", true]]),
    ...file("b.ts", [[2, "x", true], [3, "x", true]]),
  ]);
  assertEquals(collector.beforePage, 2);
  assertEquals(collector.matches.map((match) => `${match.path}:${match.line}`), ["src/b.ts:3"]);
});

Deno.test("MatchCollector: one match past the cap makes it capped, done once the last kept match has its context", () => {
  const collector = collect({ maxResults: 1, context: 2 }, [
    ...file("a.ts", [[1, "x", true], [2, "x", true], [3, "after", false], [4, "not needed", false]]),
  ]);
  assert(collector.capped && collector.done);
  assertEquals(collector.matches, [
    { path: "src/a.ts", line: 1, column: 2, text: "x", before: [], after: ["x", "after"] },
  ]);
});

Deno.test("MatchCollector: a binary file's matches, unwanted files and names outside the start are dropped", () => {
  const collector = collect({ wanted: (below) => below !== "skip.ts" }, [
    ...file("bin.dat", [[1, "x", true]], true),
    ...file("skip.ts", [[1, "x", true]]),
    ...file("../outside.ts", [[1, "x", true]]),
    ...file("./kept.ts", [[1, "x", true]]),
  ]);
  assertEquals(collector.matches.map((match) => match.path), ["src/kept.ts"]);
});

Deno.test("trimLine keeps a short line and trims a long one around the match, marking the cut ends", () => {
  assertEquals(trimLine("short", 0, 40), "short");
  const trimmed = trimLine("x".repeat(1000) + "needle" + "y".repeat(1000), 1000, 40);
  assert(new TextEncoder().encode(trimmed).length <= 40, trimmed);
  assert(trimmed.startsWith(TRIM_MARKER) && trimmed.endsWith(TRIM_MARKER) && trimmed.includes("needle"), trimmed);
});
