import { assert, assertEquals } from "../../testing/assert.ts";
import { FoundFiles, type FoundFilesOptions } from "./found_files.ts";
import { wantedFiles } from "../search/glob.ts";

const OPTIONS: FoundFilesOptions = {
  rootAbs: "/repo",
  wanted: wantedFiles(null, false),
  afterPath: null,
  keepFirst: null,
  stopAt: Infinity,
};

/** Feeds `output` to a new FoundFiles in chunks of `size` bytes, as rg's stdout may arrive. */
function walk(options: Partial<FoundFilesOptions>, output: Uint8Array, size: number): FoundFiles {
  const found = new FoundFiles({ ...OPTIONS, ...options });
  for (let at = 0; at < output.length && !found.full; at += size) found.take(output.subarray(at, at + size));
  found.end();
  return found;
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("FoundFiles: names split at NULs across any chunking; hidden, outside and filtered names dropped", () => {
  const output = encode("./b.ts\0./.env\0./../x\0./sub/a.ts\0./c.md\0./last.ts");
  const filter = { matches: (path: string) => !path.endsWith(".md"), basenames: null, excludes: [] };
  for (const size of [1, 3, 7, 1000]) {
    const found = walk({ wanted: wantedFiles(filter, false) }, output, size);
    assertEquals(found.kept(), ["b.ts", "sub/a.ts", "last.ts"], `chunks of ${size}`);
    assertEquals(found.matched, 3);
  }
});

Deno.test("FoundFiles: with a resume path and keepFirst, the first paths after it are kept, the earlier counted", () => {
  const found = walk({ afterPath: "b", keepFirst: 2 }, encode("d\0a\0c\0b\0e\0"), 4);
  assertEquals(found.kept(), ["c", "d"]);
  assertEquals([found.matched, found.beforeCursor], [5, 2]);
});

Deno.test("FoundFiles: full once stopAt files matched", () => {
  const found = walk({ stopAt: 2 }, encode("a\0b\0c\0d\0"), 100);
  assert(found.full);
  assertEquals(found.kept(), ["a", "b"]);
});

Deno.test("FoundFiles: a name that is not UTF-8 is decoded lossily and remembered", () => {
  const found = walk({}, new Uint8Array([...encode("./ok\0./bad"), 0xff, 0]), 100);
  assertEquals(found.kept(), ["ok", "bad\uFFFD"]);
  assertEquals([...found.lossy].includes("bad\uFFFD"), true);
});
