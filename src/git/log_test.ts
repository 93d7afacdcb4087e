import { assertEquals } from "../testing/assert.ts";
import { CommitParser, MAX_MESSAGE_CHARS } from "./log.ts";

// Captured from `git log -z --format=tformat:<COMMIT_FORMAT>` (git 2.39).
const SHA1 = "880c1c462ff78c5b75be016e58764d028e2dd91d";
const SHA2 = "784cb0d44bcfe52f809eaabab36a79989bca1764";
const CAPTURED = [
  SHA1,
  SHA2,
  "B",
  "b@x",
  "2026-12-02T20:50:40+00:00",
  "B",
  "b@x",
  "2026-12-02T20:50:40+00:00",
  "second",
  "",
  "",
  SHA2,
  "",
  "Ada L",
  "ada@x",
  "2024-05-01T10:00:00+02:00",
  "Ada L",
  "ada@x",
  "2026-12-02T20:50:40+00:00",
  "subj line",
  "body one\nbody two\n",
  "",
].join("\0") + "\0";

Deno.test("CommitParser reads NUL-separated commits across chunk boundaries", () => {
  const parser = new CommitParser();
  const bytes = new TextEncoder().encode(CAPTURED);
  for (let i = 0; i < bytes.length; i += 5) parser.push(bytes.subarray(i, i + 5));
  const commits = parser.end();
  assertEquals(commits.length, 2);
  assertEquals(commits[0].parents, [SHA2]);
  assertEquals(commits[0].body, "");
  assertEquals(commits[1], {
    sha: SHA2,
    parents: [],
    author: { name: "Ada L", email: "ada@x", time: "2024-05-01T10:00:00+02:00" },
    committer: { name: "Ada L", email: "ada@x", time: "2026-12-02T20:50:40+00:00" },
    subject: "subj line",
    body: "body one\nbody two",
    body_truncated: false,
  });
});

Deno.test("CommitParser bounds a long body and flags it", () => {
  const body = "😀".repeat(MAX_MESSAGE_CHARS);
  const record = [SHA1, "", "A", "a@x", "t", "A", "a@x", "t", "s", body, ""].join("\0") + "\0";
  const parser = new CommitParser();
  parser.push(new TextEncoder().encode(record));
  const [commit] = parser.end();
  assertEquals(commit.body_truncated, true);
  assertEquals(commit.body, "😀".repeat(MAX_MESSAGE_CHARS / 2));
});
