import { assert, assertEquals } from "../../testing/assert.ts";
import { gitDiff, type KeptDiff, type PagedDiff } from "./diff.ts";
import { gitShow, type KeptShow } from "./show.ts";
import type { DiffPosition } from "./diff_page.ts";
import { commitAll, git, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import { memorySlot } from "../../testing/memory_slot.ts";

/** Eight files of 40 lines, each changed in three places, one renamed, one binary, one added and one deleted. */
async function changeFiles(root: string, round: number): Promise<void> {
  const files: Record<string, string | Uint8Array> = {};
  for (let f = 0; f < 8; f++) {
    const lines = Array.from({ length: 40 }, (_, i) => `file ${f} line ${i}${i % 13 === 5 ? ` changed ${round}` : ""}`);
    files[`src/f${f}.txt`] = lines.join("\n") + "\n";
  }
  files[`bin${round}.dat`] = new Uint8Array([0, 1, 2, round]);
  files[`added${round}.txt`] = "new\n".repeat(30);
  await writeFiles(root, files);
  await Deno.remove(`${root}/added${round - 1}.txt`).catch(() => {});
  if (round === 1) await git(root, "mv", "src/f7.txt", "src/moved.txt");
}

/** Every page of a paged diff from its start, with what the text of each is built from. */
async function allPages(read: (after: DiffPosition | null) => Promise<PagedDiff>): Promise<unknown[]> {
  const pages: unknown[] = [];
  let after: DiffPosition | null = null;
  do {
    const diff = await read(after);
    const shown = diff.lines.length;
    pages.push({
      data: diff.data,
      start: diff.start,
      lines: diff.lines,
      replayed: diff.replayed,
      cursors: [diff.cursorAfter(1), diff.cursorAfter(shown)],
      files: diff.lines.map((line) => diff.fileAt(line.file)),
    });
    after = diff.data.next_cursor === null ? null : JSON.parse(diff.data.next_cursor);
  } while (after !== null);
  return pages;
}

Deno.test("git_diff and git_show: pages read from what a run read ahead are the pages git gives, from a few runs", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-diff-" }));
  try {
    await initRepo(root);
    await changeFiles(root, 0);
    await commitAll(root, "base");
    await changeFiles(root, 1);
    await commitAll(root, "change");
    await changeFiles(root, 2);
    using service = gitServiceFor(root);
    const page = (after: DiffPosition | null) => ({ after, encode: JSON.stringify, maxChars: 2_000 });

    const diffPages = (keep: ReturnType<typeof memorySlot<KeptDiff>> | undefined, maxBytes: number) =>
      allPages((after) => gitDiff(service, { staged: false, context: 2, maxBytes, page: page(after), keep }));
    const runs: number[] = [];
    for (const maxBytes of [150, 700]) {
      const slot = memorySlot<KeptDiff>();
      const walked = await diffPages(undefined, maxBytes);
      assertEquals(await diffPages(slot, maxBytes), walked);
      // Each later page reads the slot once; git runs again only for a page past what the last run read ahead,
      // which reads eight times as far as the page it serves.
      assertEquals(slot.reads, walked.length - 1);
      assert(slot.puts <= Math.ceil(Math.log(walked.length) / Math.log(8)), `${slot.puts} runs`);
      runs.push(slot.puts);
      assertEquals(slot.kept!.filesFrom + slot.kept!.files.length, 8); // seven changed, one deleted
    }
    assertEquals(runs, [2, 1]); // a later page's run kept what it read too

    const showPages = (keep: ReturnType<typeof memorySlot<KeptShow>> | undefined) =>
      allPages(async (after) => {
        const shown = await gitShow(service, { rev: "HEAD", maxBytes: 300, page: page(after), keep });
        if (shown.kind !== "commit") throw new Error("a commit was asked for");
        return { ...shown.diff, data: { ...shown.diff.data, ...shown.page.data } };
      });
    const slot = memorySlot<KeptShow>();
    const walked = await showPages(undefined);
    assertEquals(await showPages(slot), walked);
    assertEquals([slot.reads, slot.kept!.commit.subject], [walked.length - 1, "change"]);
    assert(walked.length > 10 && slot.puts < walked.length / 4, `${slot.puts} runs for ${walked.length} pages`);

    // A diff one page holds is not kept.
    const whole = memorySlot<KeptDiff>();
    const big = { after: null, encode: JSON.stringify, maxChars: 1_000_000 };
    const one = await gitDiff(service, { staged: false, context: 2, maxBytes: 1 << 20, page: big, keep: whole });
    assertEquals([one.data.next_cursor, whole.puts], [null, 0]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
