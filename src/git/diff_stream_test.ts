import { assertEquals } from "../../tests/assert.ts";
import { cutPatch, DiffStatsParser, PatchCollector } from "./diff_stream.ts";

const encode = (text: string) => new TextEncoder().encode(text);

// Captured from `git diff --cached --raw --numstat -z -M` (git 2.39): binary, rename, add, and a
// work-tree conflict (a "U" record followed by the same path's change against our side).
const CAPTURED = [
  ":100644 100644 88768ef 3e3315e M",
  "b.bin",
  ":100644 100644 587be6b 587be6b R100",
  "top file.txt",
  "sub/moved é.txt",
  ":000000 100644 0000000 45b983b A",
  "new\nline",
  ":000000 100644 0000000 0000000 U",
  "f",
  ":100644 100644 351be5b 0000000 M",
  "f",
  "-\t-\tb.bin",
  "0\t0\t",
  "top file.txt",
  "sub/moved é.txt",
  "1\t0\tnew\nline",
  "0\t0\tf",
  "4\t0\tf",
  "",
].join("\0");

Deno.test("DiffStatsParser joins raw status and numstat, renames, binaries and conflicts", () => {
  const parser = new DiffStatsParser((path) => path);
  const bytes = encode(CAPTURED);
  for (let i = 0; i < bytes.length; i += 3) parser.push(bytes.subarray(i, i + 3));
  const { files, total_files } = parser.result();
  assertEquals(total_files, 4);
  assertEquals(files, [
    { path: "b.bin", old_path: null, status: "modified", added: null, removed: null, binary: true },
    { path: "sub/moved é.txt", old_path: "top file.txt", status: "renamed", added: 0, removed: 0, binary: false },
    { path: "new\nline", old_path: null, status: "added", added: 1, removed: 0, binary: false },
    { path: "f", old_path: null, status: "unmerged", added: 4, removed: 0, binary: false },
  ]);
});

Deno.test("PatchCollector bounds the text at a line end and names the cut files", () => {
  const files = ["a", "b", "c"].map((path) => ({
    path,
    old_path: null,
    status: "modified" as const,
    added: 1,
    removed: 0,
    binary: false,
  }));
  const patch = "diff --git a/a b/a\n+1\ndiff --git a/b b/b\n+2\ndiff --git a/c b/c\n+3\n";
  const collector = new PatchCollector(30);
  let going = true;
  for (const byte of encode(patch)) if (going) going = collector.push(new Uint8Array([byte]));
  assertEquals(going, false);
  const result = collector.result(files);
  assertEquals(result.diff, "diff --git a/a b/a\n+1\n");
  assertEquals(result.truncated, true);
  assertEquals(result.cut_files, ["a", "b", "c"]);
  const whole = new PatchCollector(1000);
  whole.push(encode(patch));
  assertEquals(whole.result(files).truncated, false);
  assertEquals(whole.result(files).cut_files, []);
});

Deno.test("cutPatch falls back to a character boundary inside one long line", () => {
  assertEquals(cutPatch(encode("ééé"), 5), "éé");
  assertEquals(cutPatch(encode("a\nbc\n"), 4), "a\n");
});
