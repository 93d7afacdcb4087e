import { assert, assertEquals } from "../../testing/assert.ts";
import { compileGlobs, isHiddenPath, prefilterArgs, wantedFiles } from "./glob.ts";
import { ToolError } from "../errors.ts";

const CASES: { globs: string[]; yes: string[]; no: string[] }[] = [
  { globs: ["*.ts"], yes: ["a.ts", "src/deep/a.ts"], no: ["a.tsx", "a.ts/b.js"] },
  { globs: ["**/*.ts"], yes: ["a.ts", "x/y/a.ts"], no: ["a.js"] },
  { globs: ["src/*.ts"], yes: ["src/a.ts"], no: ["src/x/a.ts", "lib/src/a.ts"] },
  { globs: ["/src/**/*.ts"], yes: ["src/a.ts", "src/x/y/a.ts"], no: ["lib/src/a.ts"] },
  { globs: ["src/**"], yes: ["src/a", "src/x/y"], no: ["src", "srcx/a"] },
  { globs: ["docs/"], yes: ["docs/a.md", "docs/x/y.md", "x/docs/a.md"], no: ["docs", "docsx/a.md"] },
  { globs: ["a/**/b.txt"], yes: ["a/b.txt", "a/x/y/b.txt"], no: ["b.txt"] },
  { globs: ["*.{ts,tsx}"], yes: ["x/a.ts", "a.tsx"], no: ["a.js"] },
  { globs: ["file?.[ch]"], yes: ["file1.c", "d/fileX.h"], no: ["file10.c", "file1.o"] },
  { globs: ["[!a]*.md"], yes: ["b.md"], no: ["a.md"] },
  { globs: ["!dist"], yes: ["a.ts", "src/dist.ts"], no: ["dist", "dist/a.js", "x/dist/y.js"] },
  { globs: ["**/*.ts", "!**/*_test.ts"], yes: ["a.ts"], no: ["a_test.ts", "x/a_test.ts", "a.js"] },
  { globs: ["!*_test.ts", "**/*.ts"], yes: ["a_test.ts"], no: ["a.js"] },
  { globs: ["a\\*b"], yes: ["a*b"], no: ["axb"] },
  { globs: ["\\!x"], yes: ["!x"], no: ["x"] },
  { globs: ["a.b"], yes: ["a.b"], no: ["axb"] },
  { globs: ["**"], yes: ["a", "x/y/z"], no: [] },
];

Deno.test("compileGlobs: gitignore-style patterns with rg --glob meaning", () => {
  for (const { globs, yes, no } of CASES) {
    const filter = compileGlobs(globs);
    for (const path of yes) assert(filter.matches(path), `${globs} should match ${path}`);
    for (const path of no) assert(!filter.matches(path), `${globs} should not match ${path}`);
  }
});

Deno.test("prefilterArgs: types only when every positive pattern names files; only final exclusions prune", () => {
  assertEquals(compileGlobs(["**/*.ts", "src/*.{js,jsx}", "!x"]).basenames, ["*.ts", "*.{js,jsx}"]);
  assertEquals(compileGlobs(["src/**"]).basenames, null);
  assertEquals(compileGlobs(["docs/", "*.ts"]).basenames, null);
  assertEquals(compileGlobs(["!dist"]).basenames, null);
  assertEquals(prefilterArgs(compileGlobs(["*.md"])), ["--type-add", "workcellglob:*.md", "--type", "workcellglob"]);
  assertEquals(prefilterArgs(compileGlobs(["!x"])), ["--glob=!x"]);
  assertEquals(prefilterArgs(compileGlobs(["!a", "*.ts", "!b/"])), [
    "--glob=!b/",
    "--type-add",
    "workcellglob:*.ts",
    "--type",
    "workcellglob",
  ]);
});

Deno.test("compileGlobs: empty pattern is INVALID_ARGUMENT", () => {
  for (const bad of ["", "!", "/"]) {
    let error: unknown;
    try {
      compileGlobs([bad]);
    } catch (e) {
      error = e;
    }
    assert(error instanceof ToolError && error.code === "INVALID_ARGUMENT", JSON.stringify(bad));
  }
});

Deno.test("isHiddenPath", () => {
  assert(isHiddenPath(".env"));
  assert(isHiddenPath("a/.git/config"));
  assert(!isHiddenPath("a/b.c"));
});

Deno.test("wantedFiles: the filter, and the hidden filter unless hidden files are included", () => {
  const ts = compileGlobs(["*.ts"]);
  assertEquals(["a.ts", "a.md", ".a.ts", "src/.cache/a.ts"].map(wantedFiles(ts, false)), [true, false, false, false]);
  assertEquals(["a.ts", "a.md", ".a.ts"].map(wantedFiles(ts, true)), [true, false, true]);
  assertEquals(["a.md", ".env"].map(wantedFiles(null, false)), [true, false]);
});
