import { assertEquals } from "../../testing/assert.ts";
import { DiffStatsParser } from "./diff_stream.ts";

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
  const parser = new DiffStatsParser((path) => path, 0);
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

Deno.test("DiffStatsParser keeps the files from a page's first on, and counts them all", () => {
  const parser = new DiffStatsParser((path) => path, 2);
  parser.push(encode(CAPTURED));
  const { files, total_files } = parser.result();
  assertEquals([total_files, files.map((file) => file.path)], [4, ["new\nline", "f"]]);
  assertEquals([parser.file(1), parser.file(3)?.path], [undefined, "f"]);
});
