import { assertEquals } from "../../testing/assert.ts";
import {
  gitStatus,
  type KeptStatus,
  type StatusEntry,
  StatusParser,
  type StatusPosition,
  type StatusType,
} from "./status.ts";
import { commitAll, git, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import { memorySlot } from "../../testing/memory_slot.ts";

// Captured from `git status --porcelain=v2 -z --branch --ignored=matching` (git 2.39).
const CAPTURED = [
  "# branch.oid 7a813cb0083bffd29f2f84abbacf9a9f8eaa16cb",
  "# branch.head main",
  "# branch.upstream origin/main",
  "# branch.ab +2 -1",
  "1 .M N... 100644 100644 100644 45b983be36b73c0788dc9cbcb76cbb80fc7bb057 45b983be36b73c0788dc9cbcb76cbb80fc7bb057 sub/a.txt",
  "2 R. N... 100644 100644 100644 587be6b4c3f93f93c489c0111bba5596147a26cb 587be6b4c3f93f93c489c0111bba5596147a26cb R100 sub/moved é.txt",
  "top file.txt",
  "u UU N... 100644 100644 100644 100644 df967b96a579e45a18b8251732d16804b2e56a55 351be5bf6e17c59ea560546d69654115ecb2fd8d e45c9c2666d44e0327c1f9c239a74c508336053e f",
  "1 .M SC.. 160000 160000 160000 1111111111111111111111111111111111111111 1111111111111111111111111111111111111111 lib",
  "? new\nline",
  "! build/",
  "",
].join("\0");

Deno.test("StatusParser reads branch headers, renames, conflicts, submodules, untracked and ignored", () => {
  const parser = new StatusParser((path) => path, 100);
  const bytes = new TextEncoder().encode(CAPTURED);
  // Feed in small chunks so records straddle them.
  for (let i = 0; i < bytes.length; i += 7) parser.push(bytes.subarray(i, i + 7));
  parser.end();
  assertEquals(parser.info, {
    branch: "main",
    head: "7a813cb0083bffd29f2f84abbacf9a9f8eaa16cb",
    upstream: "origin/main",
    ahead: 2,
    behind: 1,
    detached: false,
  });
  const entry = (path: string, index: string, worktree: string, type: StatusType, extra = {}): StatusEntry => ({
    path,
    index,
    worktree,
    orig_path: null,
    type,
    submodule: false,
    ...extra,
  });
  assertEquals(parser.entries, [
    entry("sub/a.txt", ".", "M", "changed"),
    entry("sub/moved é.txt", "R", ".", "renamed", { orig_path: "top file.txt" }),
    entry("f", "U", "U", "unmerged"),
    entry("lib", ".", "M", "changed", { submodule: true }),
    entry("new\nline", "?", "?", "untracked"),
    entry("build/", "!", "!", "ignored"),
  ]);
  assertEquals([parser.total, parser.changes], [6, 5]);
});

Deno.test("StatusParser: detached and initial heads, a path filter and the entry cap", () => {
  const parser = new StatusParser((path) => path.startsWith("keep/") ? path.slice(5) : null, 1);
  parser.push(
    new TextEncoder().encode("# branch.oid (initial)\0# branch.head (detached)\0? keep/a\0? keep/b\0? other\0"),
  );
  parser.end();
  assertEquals([parser.info.head, parser.info.branch, parser.info.detached], [null, null, true]);
  assertEquals(parser.entries.map((e) => e.path), ["a"]);
  assertEquals(parser.total, 2);
});

Deno.test("StatusParser: after a position it keeps only later entries, in git's order, and counts the earlier", () => {
  const parser = new StatusParser((path) => path, 2, { g: 0, p: "b" });
  parser.push(new TextEncoder().encode(
    ["1 .M N... 100644 100644 100644 a a a", "1 .M N... 100644 100644 100644 a a b"]
      .concat(["1 .M N... 100644 100644 100644 a a c", "? a", "? z", "! x", ""]).join("\0"),
  ));
  parser.end();
  assertEquals(parser.entries.map((e) => `${e.type}:${e.path}`), ["changed:c", "untracked:a"]);
  assertEquals([parser.before, parser.total], [2, 6]);
});

Deno.test("gitStatus: pages read from the kept status are the pages git status gives, and git runs once", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-status-" }));
  try {
    await initRepo(root);
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`tracked/t${i}.txt`] = `${i}\n`;
    await writeFiles(root, files);
    await commitAll(root, "base");
    const changed: Record<string, string> = {};
    for (let i = 0; i < 12; i += 2) changed[`tracked/t${i}.txt`] = "changed\n";
    for (let i = 0; i < 9; i++) changed[`n${i}.txt`] = "new\n";
    await writeFiles(root, changed);
    await git(root, "mv", "tracked/t1.txt", "tracked/moved.txt");
    using service = gitServiceFor(root);
    const pages = async (keep: ReturnType<typeof memorySlot<KeptStatus>> | null) => {
      const out: unknown[] = [];
      let after: StatusPosition | null = null;
      do {
        const page = await gitStatus(service, {
          includeIgnored: false,
          limit: 4,
          page: { after, encode: JSON.stringify, maxChars: 48_000 },
          keep,
        });
        out.push({ data: page.data, start: page.start });
        after = page.data.next_cursor === null ? null : JSON.parse(page.data.next_cursor);
      } while (after !== null);
      return out;
    };
    const slot = memorySlot<KeptStatus>();
    const walked = await pages(null);
    assertEquals(await pages(slot), walked);
    assertEquals([walked.length, slot.puts, slot.reads], [4, 1, 3]);
    assertEquals(slot.kept!.total, 16);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
