import { assertEquals } from "../../testing/assert.ts";
import { BlameParser, isoTime } from "./blame.ts";

// Captured from `git blame --porcelain -- sub/a.txt` (git 2.39): a committed line and an uncommitted one.
const CAPTURED = `7a813cb0083bffd29f2f84abbacf9a9f8eaa16cb 1 1 1
author A
author-mail <a@b>
author-time 1796244240
author-tz +0000
committer A
committer-mail <a@b>
committer-time 1796244240
committer-tz +0000
summary init
boundary
filename sub/a.txt
\thi
0000000000000000000000000000000000000000 2 2 2
author Not Committed Yet
author-mail <not.committed.yet>
author-time 1796244269
author-tz -0130
committer Not Committed Yet
committer-mail <not.committed.yet>
committer-time 1796244269
committer-tz +0000
summary Version of sub/a.txt from sub/a.txt
previous 7a813cb0083bffd29f2f84abbacf9a9f8eaa16cb sub/a.txt
filename sub/a.txt
\tmore
0000000000000000000000000000000000000000 3 3
\t\tindented
`;

Deno.test("BlameParser reads porcelain groups and reuses commit headers", () => {
  const parser = new BlameParser();
  const bytes = new TextEncoder().encode(CAPTURED);
  for (let i = 0; i < bytes.length; i += 11) parser.push(bytes.subarray(i, i + 11));
  const lines = parser.end();
  assertEquals(lines.map((l) => [l.line, l.sha.slice(0, 7), l.text]), [
    [1, "7a813cb", "hi"],
    [2, "0000000", "more"],
    [3, "0000000", "\tindented"],
  ]);
  // Each commit once, only those the lines given name.
  const commits = parser.commitsOf(lines);
  assertEquals(Object.values(commits), [
    { author: "A", time: "2026-12-02T20:44:00+00:00", summary: "init" },
    {
      author: "Not Committed Yet",
      time: "2026-12-02T19:14:29-01:30",
      summary: "Version of sub/a.txt from sub/a.txt",
    },
  ]);
  assertEquals(Object.keys(parser.commitsOf(lines.slice(1))), ["0".repeat(40)]);
});

Deno.test("isoTime keeps the author's own offset", () => {
  assertEquals(isoTime(0, "+0130"), "1970-01-01T01:30:00+01:30");
  assertEquals(isoTime(1714550400, "+0200"), "2024-05-01T10:00:00+02:00");
});
