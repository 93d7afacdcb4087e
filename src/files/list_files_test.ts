import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { memorySlot } from "../../testing/memory_slot.ts";
import {
  type FileListing,
  type KeptListing,
  listFiles,
  type ListFilesOptions,
  type ListPosition,
  listPositionSchema,
} from "./list_files.ts";
import { ToolError } from "../errors.ts";
import { jsonChars } from "../paging/budget.ts";
import type { Paged } from "../paging/cursor.ts";
import { Reactor } from "../os/reactor.ts";
import { createChildSpawners } from "../policy/child_spawners.ts";
import { probeLandlock } from "../policy/landlock_probe.ts";
import { RipgrepRunner } from "../search/ripgrep_runner.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { rgPath } from "@vscode/ripgrep";

const landlock = probeLandlock();

/** The tree of most tests: content, and the mtime in seconds each listed file is given. */
const FILES: Record<string, [string, number?]> = {
  "a.txt": ["alpha\n", 400e6],
  "B.md": ["# B\n", 300e6],
  "b.txt": ["b\n", 300e6],
  "b/c.ts": ["export const c = 1;\n", 100e6],
  "b/d/e.ts": ["export const e = 2;\n", 500e6],
  ".gitignore": ["*.log\nbuild/\n"],
  ".git/info/exclude": ["excluded.txt\n"],
  ".env": ["SECRET=1\n"],
  ".config/settings.json": ["{}\n"],
  "app.log": ["log\n"],
  "b/d/debug.log": ["log\n"],
  "build/out.js": ["out\n"],
  "excluded.txt": ["x\n"],
};

/** What the tree lists by default, in path order. */
const LISTED = ["B.md", "a.txt", "b.txt", "b/c.ts", "b/d/e.ts"];

const DEFAULTS: ListFilesOptions = {
  globs: [],
  ignore: [],
  respectGitignore: true,
  includeHidden: false,
  sort: "path",
  limit: 1000,
  page: { after: null, encode: (position) => JSON.stringify(position), maxChars: 48_000 },
  keep: null,
};

type Options = Partial<Omit<ListFilesOptions, "page">> & { after?: ListPosition | null; maxChars?: number };

/** A workspace holding FILES, symlinks to inside and outside it, and the rg runner of a server on it. */
async function fixture() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-list-files-" }));
  const root = `${base}/ws`;
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/outside/secret.txt`, "SECRET outside\n");
  for (const [rel, [content, mtime]] of Object.entries(FILES)) {
    const file = `${root}/${rel}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, content);
    if (mtime !== undefined) await Deno.utime(file, mtime, mtime);
  }
  await Deno.symlink("b", `${root}/link_b`);
  await Deno.symlink("a.txt", `${root}/link_a.txt`);
  await Deno.symlink(`${base}/outside`, `${root}/escape`);
  const ws = openWorkspace(root);
  const rg = { path: rgPath, fd: null };
  const children = createChildSpawners(ws, { tmpdir: null, env: Deno.env.toObject(), landlock, ripgrep: rg });
  const runner = new RipgrepRunner({ rg, children, reactor: new Reactor() });
  return {
    base,
    root,
    list(path: string, options: Options = {}): Promise<Paged<FileListing>> {
      const { after = null, maxChars = DEFAULTS.page.maxChars, ...rest } = options;
      return listFiles(ws, path, runner, { ...DEFAULTS, ...rest, page: { ...DEFAULTS.page, after, maxChars } });
    },
    async [Symbol.asyncDispose]() {
      await runner.close();
      ws[Symbol.dispose]();
      await Deno.remove(base, { recursive: true });
    },
  };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

const paths = (page: Paged<FileListing>) => page.data.files.map((file) => file.path);

/** Every page of a listing of `path`, each resumed from the previous one's next_cursor. */
async function allPages(t: Fixture, path: string, options: Options): Promise<Paged<FileListing>[]> {
  const pages: Paged<FileListing>[] = [];
  let after: ListPosition | null = null;
  for (let call = 0; call < 100; call++) {
    const page = await t.list(path, { ...options, after });
    pages.push(page);
    if (page.data.next_cursor === null) return pages;
    after = listPositionSchema(options.sort ?? "path").parse(JSON.parse(page.data.next_cursor));
  }
  throw new Error("the cursors never reached the end");
}

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await assertRejects(() => promise);
  assert(error instanceof ToolError, String(error));
  return error.code;
}

Deno.test("listFiles lists every file by its workspace-relative path in path order, with size and mtime", async () => {
  await using t = await fixture();
  const page = await t.list(".");
  assertEquals(paths(page), LISTED);
  const { files, ...rest } = page.data;
  assertEquals(rest, { path: ".", truncated: false, total_matched: 5, warnings: [], next_cursor: null });
  assertEquals(page.start, 0);
  for (const file of files) {
    const [content, mtime] = FILES[file.path];
    assertEquals(file.size, new TextEncoder().encode(content).length, file.path);
    assertEquals(file.mtime, new Date(mtime! * 1000).toISOString(), file.path);
    assertEquals(file.path_lossy, undefined);
  }
});

Deno.test("listFiles sorts by path in UTF-16 code-unit order, whatever the order files were made in", async () => {
  await using t = await fixture();
  for (const name of ["Z.txt", "_.txt", "b-c.ts", "é.txt", "b/0.ts"]) await Deno.writeTextFile(`${t.root}/${name}`, "");
  const listed = paths(await t.list("."));
  assertEquals(listed, [...listed].sort());
  assertEquals(listed, ["B.md", "Z.txt", "_.txt", "a.txt", "b-c.ts", "b.txt", "b/0.ts", "b/c.ts", "b/d/e.ts", "é.txt"]);
});

Deno.test("listFiles: a glob narrows the listing and ignore patterns leave files out", async () => {
  await using t = await fixture();
  assertEquals(paths(await t.list(".", { globs: ["**/*.ts"] })), ["b/c.ts", "b/d/e.ts"]);
  assertEquals(paths(await t.list(".", { globs: ["*.ts", "!e.ts"] })), ["b/c.ts"]);
  assertEquals(paths(await t.list(".", { globs: ["*.txt"] })), ["a.txt", "b.txt"]);
  assertEquals(paths(await t.list(".", { globs: ["*.log"] })), [], "a glob never brings back an ignored file");
  assertEquals(paths(await t.list(".", { ignore: ["b/", "*.md"] })), ["a.txt", "b.txt"]);
  assertEquals(paths(await t.list(".", { globs: ["*.ts"], ignore: ["d/"] })), ["b/c.ts"]);
  const none = await t.list(".", { globs: ["*.rs"] });
  assertEquals([none.data.files, none.data.total_matched, none.data.truncated], [[], 0, false]);
});

Deno.test("listFiles: an ignore pattern starting with ! and an empty glob are INVALID_ARGUMENT", async () => {
  await using t = await fixture();
  assertEquals(await code(t.list(".", { ignore: ["!app.log"] })), "INVALID_ARGUMENT");
  assertEquals(await code(t.list(".", { globs: [""] })), "INVALID_ARGUMENT");
});

Deno.test("listFiles leaves ignored and hidden files out by default and lists them when asked", async () => {
  await using t = await fixture();
  const hidden = [".config/settings.json", ".env", ".gitignore"];
  const ignored = ["app.log", "b/d/debug.log", "build/out.js", "excluded.txt"];
  const sorted = (names: string[]) => [...names].sort();
  assertEquals(paths(await t.list(".", { includeHidden: true })), sorted([...LISTED, ...hidden]));
  assertEquals(paths(await t.list(".", { respectGitignore: false })), sorted([...LISTED, ...ignored]));
  const everything = paths(await t.list(".", { respectGitignore: false, includeHidden: true }));
  assertEquals(everything, sorted([...LISTED, ...hidden, ...ignored]));
  assert(!everything.some((path) => path.startsWith(".git/")), ".git itself is never listed");
  assert(!everything.some((path) => path.startsWith("link_") || path.startsWith("escape")), "no symlink is listed");
});

Deno.test("listFiles of a subdirectory lists its files with paths from the workspace root", async () => {
  await using t = await fixture();
  const sub = await t.list("b");
  assertEquals([sub.data.path, paths(sub), sub.data.total_matched], ["b", ["b/c.ts", "b/d/e.ts"], 2]);
  assertEquals(paths(await t.list("./b/d/")), ["b/d/e.ts"]);
  assertEquals(paths(await t.list("b", { globs: ["d/*.ts"] })), ["b/d/e.ts"]);
  assertEquals(paths(await t.list(`${t.root}/b/d`)), ["b/d/e.ts"], "an absolute path inside the workspace");
  // Through a symlink to a directory inside, the listing is of its target.
  const linked = await t.list("link_b");
  assertEquals([linked.data.path, paths(linked)], ["b", ["b/c.ts", "b/d/e.ts"]]);
});

Deno.test("listFiles sorts by size largest first and by mtime newest first, ties by path", async () => {
  await using t = await fixture();
  assertEquals(paths(await t.list(".", { sort: "size" })), ["b/c.ts", "b/d/e.ts", "a.txt", "B.md", "b.txt"]);
  assertEquals(paths(await t.list(".", { sort: "mtime" })), ["b/d/e.ts", "a.txt", "B.md", "b.txt", "b/c.ts"]);
  const none = await t.list(".", { sort: "none" });
  assertEquals([[...paths(none)].sort(), none.data.total_matched, none.data.truncated], [LISTED, 5, false]);
});

Deno.test("listFiles: a limit cuts the page, and following the cursors lists every file once, in every sort", async () => {
  await using t = await fixture();
  for (const sort of ["path", "mtime", "size", "none"] as const) {
    const whole = paths(await t.list(".", { sort }));
    const pages = await allPages(t, ".", { sort, limit: 2 });
    assertEquals(pages.map((page) => page.data.files.length), [2, 2, 1], sort);
    let before = 0;
    for (const [i, page] of pages.entries()) {
      const last = i === pages.length - 1;
      assertEquals([page.start, page.data.truncated, page.data.next_cursor === null], [before, !last, last], sort);
      // With sort "none" a walk that stopped at the cap does not know the total.
      assertEquals(page.data.total_matched, sort === "none" && !last ? null : 5, sort);
      before += page.data.files.length;
    }
    const listed = pages.flatMap(paths);
    if (sort === "none") assertEquals([...listed].sort(), LISTED, sort);
    else assertEquals(listed, whole, sort);
  }
});

Deno.test("listFiles: sort none lists the same order from page to page while the tree does not change", async () => {
  await using t = await fixture();
  for (let i = 0; i < 30; i++) await Deno.writeTextFile(`${t.root}/b/d/f${i}.txt`, "");
  const whole = paths(await t.list(".", { sort: "none" }));
  const listed = (await allPages(t, ".", { sort: "none", limit: 7 })).flatMap(paths);
  assertEquals(listed, whole);
  assertEquals(new Set(listed).size, 35);
});

Deno.test("listFiles: a page ends where its JSON would pass maxChars, and its cursor resumes there", async () => {
  await using t = await fixture();
  for (const sort of ["path", "mtime", "size", "none"] as const) {
    const pages = await allPages(t, ".", { sort, maxChars: 300 });
    assert(pages.length > 1, `${sort}: ${pages.length} page`);
    for (const page of pages) {
      assert(page.data.files.length >= 1, sort);
      assert(jsonChars(page.data) <= 300, `${sort}: ${JSON.stringify(page.data)}`);
    }
    const listed = pages.flatMap(paths);
    assertEquals([...listed].sort(), LISTED, sort);
  }
});

Deno.test("listFiles: sort path resumes after the cursor's path when files come and go between pages", async () => {
  await using t = await fixture();
  const first = await t.list(".", { limit: 2 });
  assertEquals(paths(first), ["B.md", "a.txt"]);
  await Deno.writeTextFile(`${t.root}/0-early.txt`, "");
  await Deno.writeTextFile(`${t.root}/b/zz.ts`, "");
  await Deno.remove(`${t.root}/b.txt`);
  await Deno.remove(`${t.root}/a.txt`);
  const after = listPositionSchema("path").parse(JSON.parse(first.data.next_cursor!));
  assertEquals(after, { p: "a.txt" });
  const rest = await t.list(".", { after });
  assertEquals(paths(rest), ["b/c.ts", "b/d/e.ts", "b/zz.ts"]);
  assertEquals([rest.start, rest.data.total_matched, rest.data.truncated], [2, 5, false]);
});

Deno.test("listFiles refuses a path outside the workspace, even through a symlink, with PATH_OUTSIDE_WORKSPACE", async () => {
  await using t = await fixture();
  for (const path of ["..", "../outside", `${t.base}/outside`, "escape", "escape/", "b/../../outside"]) {
    assertEquals(await code(t.list(path)), "PATH_OUTSIDE_WORKSPACE", path);
  }
});

Deno.test("listFiles: a missing path is NOT_FOUND and a file NOT_A_DIRECTORY", async () => {
  await using t = await fixture();
  assertEquals(await code(t.list("missing")), "NOT_FOUND");
  assertEquals(await code(t.list("b/missing")), "NOT_FOUND");
  assertEquals(await code(t.list("a.txt")), "NOT_A_DIRECTORY");
  assertEquals(await code(t.list("link_a.txt")), "NOT_A_DIRECTORY");
});

Deno.test("listFiles: a name that is not UTF-8 is listed with path_lossy and no size or mtime", async () => {
  await using t = await fixture();
  const make = new Deno.Command("sh", { args: ["-c", `: > "$1/bad$(printf '\\377')name.txt"`, "sh", `${t.root}/b`] });
  assert((await make.output()).success);
  const page = await t.list("b", { globs: ["bad*"] });
  assertEquals(page.data.files, [{ path: "b/bad\uFFFDname.txt", size: null, mtime: null, path_lossy: true }]);
});

Deno.test("listFiles with an aborted signal is TIMEOUT", async () => {
  await using t = await fixture();
  assertEquals(await code(t.list(".", { signal: AbortSignal.abort() })), "TIMEOUT");
});

Deno.test("listFiles: pages read from a kept listing are the pages a walk per page gives, for every sort", async () => {
  await using t = await fixture();
  for (let i = 0; i < 30; i++) {
    await Deno.writeTextFile(`${t.root}/b/d/f${String(i).padStart(2, "0")}.ts`, "x".repeat(i));
  }
  const bounds = [{ limit: 4 }, { limit: 100000, maxChars: 900 }]; // pages ended by the limit, then by the budget
  for (
    const [sort, bound] of (["path", "mtime", "size"] as const).flatMap((sort) => bounds.map((b) => [sort, b] as const))
  ) {
    const walked = await allPages(t, ".", { sort, ...bound });
    const keeper = memorySlot<KeptListing>();
    const kept = await allPages(t, ".", { sort, ...bound, keep: keeper });
    assert(walked.length > 2, `${sort}: several pages`);
    assertEquals(kept.map((page) => page.data), walked.map((page) => page.data), sort);
    assertEquals(kept.map((page) => page.start), walked.map((page) => page.start), sort);
    assertEquals(keeper.reads, walked.length - 1, `${sort}: every page after the first read the kept listing`);
  }
});

Deno.test("listFiles: a kept listing leaves out a file removed after the first page, and is kept only when pages follow", async () => {
  await using t = await fixture();
  const keeper = memorySlot<KeptListing>();
  const first = await t.list(".", { limit: 2, keep: keeper });
  assertEquals(paths(first), ["B.md", "a.txt"]);
  assert(keeper.kept !== undefined, "a listing with more pages is kept");
  await Deno.remove(`${t.root}/b/c.ts`);
  const after = listPositionSchema("path").parse(JSON.parse(first.data.next_cursor!));
  const second = await t.list(".", { limit: 2, keep: keeper, after });
  assertEquals(paths(second), ["b.txt", "b/d/e.ts"]);
  assertEquals(keeper.reads, 1);
  const whole = memorySlot<KeptListing>();
  assertEquals(paths(await t.list(".", { keep: whole })), LISTED.filter((rel) => rel !== "b/c.ts"));
  assertEquals(whole.kept, undefined, "one page holds it all: nothing kept");
});
