import { assert, assertEquals } from "../../testing/assert.ts";
import { CommitParser, gitLog, type KeptLog, type LogPosition, MAX_MESSAGE_CHARS } from "./log.ts";
import { importHistory } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import type { GitService } from "./service.ts";

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

/**
 * Every page of a git_log query (each page's shas and cursor) and how many times git ran; `keep` as the tool's
 * session keeps the commits read past a page, or null for no keeping.
 */
async function pageAll(git: GitService, keep: { kept?: KeptLog; drop?: boolean } | null, maxCount: number) {
  const pages: { shas: string[]; next: string | null }[] = [];
  let after: LogPosition | null = null;
  let reads = 0;
  do {
    const page = { after, encode: JSON.stringify, maxChars: 3000 };
    const store = keep && {
      get: () => keep.drop ? undefined : keep.kept,
      put: (kept: KeptLog) => {
        keep.kept = kept;
        reads++;
      },
    };
    const { data } = await gitLog(git, { maxCount, page, keep: store ?? undefined });
    pages.push({ shas: data.commits.map((commit) => commit.sha), next: data.next_cursor });
    after = data.next_cursor === null ? null : JSON.parse(data.next_cursor);
  } while (after !== null);
  return { pages, reads };
}

Deno.test("gitLog: pages read from the kept commits are the pages git's --skip gives, cursors included", async () => {
  const root = await Deno.makeTempDir();
  try {
    await importHistory(root, 300);
    using git = gitServiceFor(root);
    for (const maxCount of [7, 500]) {
      const { pages: walked } = await pageAll(git, null, maxCount);
      const keep: { kept?: KeptLog } = {};
      const { pages: kept, reads } = await pageAll(git, keep, maxCount);
      assertEquals(kept, walked, `max_count ${maxCount}`);
      assert(walked.length > 10, `${walked.length} pages`);
      assertEquals(walked.flatMap((page) => page.shas).length, 300);
      // Each git run after the first reads as many commits as precede its page: a few runs, not one a page.
      assert(reads <= Math.log2(300) + 2, `${reads} git runs kept for ${walked.length} pages`);
      assertEquals([keep.kept?.complete, keep.kept!.start + keep.kept!.commits.length], [true, 300]);
      // Kept commits that are gone (expired, dropped by a write) give the same pages.
      const gone = await pageAll(git, { drop: true }, maxCount);
      assertEquals(gone.pages, walked, `max_count ${maxCount}, nothing kept`);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
