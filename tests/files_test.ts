/**
 * End-to-end: read_file, list_dir and list_files through the SDK client,
 * every parameter and error code, with break-out attempts.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";

const encoder = new TextEncoder();

/** Builds the fixture workspace and a sibling "outside" directory the symlinks point at. */
async function fixture(): Promise<{ ws: string; outside: string }> {
  const ws = await tempWorkspace();
  const outside = await tempWorkspace();
  await Deno.writeTextFile(`${outside}/secret.txt`, "outside secret\n");
  const files: Record<string, string | Uint8Array> = {
    "a.txt": "one\ntwo\nthree\n",
    "crlf.txt": "a\r\nb\r\n",
    "bom.txt": "\uFEFFhello\n",
    "empty.txt": "",
    "open.txt": "no final newline",
    "long.txt": "x".repeat(300) + "\nshort\n",
    "latin1.txt": new Uint8Array([0x6f, 0x6b, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]),
    ".env": "HIDDEN=1\n",
    ".gitignore": "*.log\n!keep.log\nbuild/\n",
    "app.log": "log\n",
    "keep.log": "kept\n",
    "build/out.js": "built\n",
    "src/main.ts": "main\n",
    "src/util.ts": "util\n",
    "src/util_test.ts": "test\n",
    "src/.gitignore": "gen/\n*.gen\n!important.gen\n",
    "src/gen/g.ts": "generated\n",
    "src/x.gen": "gen\n",
    "src/important.gen": "important\n",
    "src/deep/er/file.md": "deep\n",
    ".hidden/inner.ts": "inner\n",
    "docs/guide.md": "guide\n",
    ".git/info/exclude": "excluded.txt\n",
    "excluded.txt": "excluded\n",
    "big.bin": new Uint8Array(3000),
  };
  for (const [name, content] of Object.entries(files)) {
    const file = `${ws}/${name}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(file, typeof content === "string" ? encoder.encode(content) : content);
  }
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/escape.txt`);
  await Deno.symlink(outside, `${ws}/escape_dir`);
  await Deno.symlink("src/main.ts", `${ws}/inside_link.ts`);
  await Deno.symlink("src", `${ws}/src_link`);
  await Deno.symlink("missing", `${ws}/dangling`);
  await new Deno.Command("mkfifo", { args: [`${ws}/fifo`] }).output();
  // A name that is not UTF-8 (byte 0xff), made by the shell since Deno paths are strings.
  await new Deno.Command("sh", { args: ["-c", `printf 'bad name\\n' > "$1/bad$(printf '\\377')name.txt"`, "sh", ws] })
    .output();
  const now = Date.now() / 1000;
  await Deno.utime(`${ws}/src/util.ts`, now + 100, now + 100);
  return { ws, outside };
}

function code(result: CallResult): string | undefined {
  return result.isError ? result.structured.error.code : undefined;
}

Deno.test("read_file, list_dir, list_files end to end", async (t) => {
  const { ws, outside } = await fixture();
  await using server = await startServer({ workspace: ws });
  const read = (args: Record<string, unknown>) => server.call("read_file", args);

  await t.step("read_file: numbered content, raw text, ranges and paging", async () => {
    const all = await read({ path: "a.txt" });
    assert(!all.isError, all.text);
    assertEquals(all.structured.text, "one\ntwo\nthree\n");
    assert(all.text.includes("1\tone\n2\ttwo\n3\tthree"), all.text);
    assertEquals([all.structured.start_line, all.structured.end_line, all.structured.has_more], [1, 3, false]);
    assertEquals([all.structured.newline, all.structured.bom, all.structured.file_size], ["lf", false, 14]);
    const page = await read({ path: "a.txt", offset: 2, limit: 1 });
    assertEquals([page.structured.text, page.structured.next_offset, page.structured.truncated_by], [
      "two\n",
      3,
      "lines",
    ]);
    // The next call names the next line and its byte: that page starts there without counting lines.
    assertEquals(page.text.split("\n").at(-1), 'next: read_file {"path":"a.txt","limit":1,"offset":3,"byte_offset":8}');
    const third = await read({ path: "a.txt", limit: 1, offset: 3, byte_offset: 8 });
    assertEquals([third.structured.text, third.structured.start_line, third.structured.has_more], [
      "three\n",
      3,
      false,
    ]);
    const bytes = await read({ path: "a.txt", max_bytes: 8 });
    assertEquals([bytes.structured.text, bytes.structured.truncated_by, bytes.structured.next_offset], [
      "one\ntwo\n",
      "bytes",
      3,
    ]);
    const past = await read({ path: "a.txt", offset: 10 });
    assertEquals([past.structured.lines_returned, past.structured.total_lines], [0, 3]);
    assert(past.text.includes("past the end"), past.text);
  });

  await t.step("read_file: newline styles, BOM, empty file, no final newline", async () => {
    assertEquals((await read({ path: "crlf.txt" })).structured.newline, "crlf");
    const bom = await read({ path: "bom.txt" });
    assertEquals([bom.structured.bom, bom.structured.text], [true, "hello\n"]);
    const empty = await read({ path: "empty.txt" });
    assertEquals([empty.isError, empty.structured.lines_returned, empty.structured.has_more], [false, 0, false]);
    const open = await read({ path: "open.txt" });
    assertEquals([open.structured.text, open.structured.newline, open.structured.lines_returned], [
      "no final newline",
      "none",
      1,
    ]);
  });

  await t.step("read_file: a long line is cut at max_bytes and resumes with byte_offset", async () => {
    const first = await read({ path: "long.txt", max_bytes: 100 });
    assertEquals([first.structured.text, first.structured.next_offset, first.structured.next_byte_offset], [
      "x".repeat(100),
      1,
      100,
    ]);
    assertEquals(
      first.text.split("\n").at(-1),
      'next: read_file {"path":"long.txt","max_bytes":100,"offset":1,"byte_offset":100}',
    );
    const rest = await read({ path: "long.txt", byte_offset: 100, max_bytes: 1000 });
    assertEquals([rest.structured.text, rest.structured.start_line, rest.structured.end_line], [
      "x".repeat(200) + "\nshort\n",
      1,
      2,
    ]);
    assertEquals(code(await read({ path: "long.txt", byte_offset: 10_000 })), "INVALID_ARGUMENT");
  });

  await t.step(
    "read_file: a 200 KB line says what it shows and where the next call goes on, every byte once",
    async () => {
      const line = Array.from({ length: 200 * 1024 / 8 }, (_, i) => String(i).padStart(8, "-")).join("");
      await Deno.writeTextFile(`${ws}/one-line.txt`, line + "\n");
      const first = await read({ path: "one-line.txt" });
      const header = first.text.split("\n")[0];
      assertEquals(
        header,
        "one-line.txt line 1 is longer than one answer shows: 15360 bytes of it here, from byte 0 of the file " +
          "(204801 bytes); the call below goes on at byte 15360.",
      );
      assert(!/24576/.test(first.text), "the structured page's size is not the model's business");
      assertEquals(first.structured.text, line.slice(0, 24 * 1024), "the structured page is unchanged");
      let args: Record<string, unknown> | null = { path: "one-line.txt" };
      let seen = "";
      for (let calls = 0; args !== null; calls++) {
        assert(calls < 40, "the calls end");
        const page = await read(args);
        const lines = page.text.split("\n");
        for (const shown of lines.slice(1)) if (/^\s*1\t/.test(shown)) seen += shown.slice(shown.indexOf("\t") + 1);
        const next = lines.at(-1)!.match(/^next: read_file (.*)$/);
        args = next ? JSON.parse(next[1]) : null;
      }
      assertEquals(seen, line);
      await Deno.remove(`${ws}/one-line.txt`);
    },
  );

  await t.step("read_file: NOT_UTF8, NOT_A_FILE, NOT_FOUND, INVALID_ARGUMENT", async () => {
    const latin = await read({ path: "latin1.txt" });
    assertEquals([code(latin), latin.structured.error.details.byte_offset, latin.structured.error.details.line], [
      "NOT_UTF8",
      6,
      2,
    ]);
    assertEquals((await read({ path: "latin1.txt", limit: 1 })).structured.text, "ok\n");
    assertEquals(code(await read({ path: "src" })), "NOT_A_FILE");
    assertEquals(code(await read({ path: "fifo" })), "NOT_A_FILE");
    assertEquals(code(await read({ path: "nope.txt" })), "NOT_FOUND");
    assertEquals(code(await read({ path: "dangling" })), "INVALID_ARGUMENT");
    for (const bad of [{ path: "a.txt", offset: 0 }, { path: "a.txt", limit: 0 }, { path: "a.txt", max_bytes: 0 }]) {
      assertEquals(code(await read(bad)), "INVALID_ARGUMENT", JSON.stringify(bad));
    }
    const unknown = await read({ path: "a.txt", bogus: 1 });
    assertEquals(code(unknown), "INVALID_ARGUMENT");
    assert(unknown.structured.error.details.fields.includes("bogus"));
    assertEquals(code(await read({ path: "a\0b" })), "INVALID_ARGUMENT");
  });

  await t.step("read_file: symlinks and paths that leave the workspace are refused", async () => {
    for (
      const path of [
        "../" + outside.split("/").pop() + "/secret.txt",
        `${outside}/secret.txt`,
        "escape.txt",
        "escape_dir/secret.txt",
        "/proc/self/root/etc/passwd",
        "src/../../x",
      ]
    ) {
      const result = await read({ path });
      assertEquals(code(result), "PATH_OUTSIDE_WORKSPACE", `${path}: ${result.text}`);
      assert(!result.text.includes("outside secret"));
    }
    const inside = await read({ path: "inside_link.ts" });
    assertEquals([inside.structured.text, inside.structured.path], ["main\n", "src/main.ts"]);
    assertEquals((await read({ path: `${ws}/src/main.ts` })).structured.text, "main\n");
  });

  await t.step("list_dir: immediate entries, types, symlink targets only inside, hidden filter", async () => {
    const top = await server.call("list_dir", {});
    assert(!top.isError, top.text);
    const byName = new Map(top.structured.entries.map((entry: { name: string }) => [entry.name, entry]));
    assert(!byName.has(".env") && !byName.has(".hidden"), "hidden entries are filtered");
    assertEquals(byName.get("a.txt"), {
      path: "a.txt",
      name: "a.txt",
      type: "file",
      size: 14,
      mtime: (byName.get("a.txt") as { mtime: string }).mtime,
    });
    assertEquals((byName.get("src") as { type: string }).type, "dir");
    assertEquals((byName.get("fifo") as { type: string }).type, "other");
    const links = ["escape.txt", "escape_dir", "inside_link.ts", "src_link", "dangling"].map((name) => {
      const entry = byName.get(name) as { type: string; target: string | null };
      return [entry.type, entry.target];
    });
    assertEquals(links, [
      ["symlink", null],
      ["symlink", null],
      ["symlink", "src/main.ts"],
      ["symlink", "src"],
      ["symlink", null],
    ]);
    assert(!JSON.stringify(top.structured).includes(outside), "no outside path is reported");
    const names = top.structured.entries.map((entry: { name: string }) => entry.name);
    assertEquals(names, [...names].sort());
    // .env, .git, .gitignore and .hidden are left out, and both views say so and how to see them.
    assertEquals(top.structured.hidden, 4);
    assert(
      top.text.includes(
        "[4 hidden entries (names starting with a dot) left out; pass include_hidden: true to list them]",
      ),
      top.text,
    );
    const hidden = await server.call("list_dir", { include_hidden: true });
    assert(hidden.structured.entries.some((entry: { name: string }) => entry.name === ".env"));
    assertEquals(hidden.structured.hidden, 0);
    assert(!hidden.text.includes("left out"), hidden.text);
    // Deeper, src/.gitignore adds one; a hidden directory counts once, its contents unwalked.
    const deep = await server.call("list_dir", { depth: 10 });
    assertEquals(deep.structured.hidden, 5);
    const page = await server.call("list_dir", { depth: 10, limit: 2 });
    assertEquals(page.structured.hidden, 5, "a page counts the whole listing's hidden entries");
    const src = await server.call("list_dir", { path: "src" });
    assert(src.text.includes("[1 hidden entry (names starting with a dot) left out"), src.text);
  });

  await t.step("list_dir: bounded recursion never descends symlinked directories; cap and total_seen", async () => {
    const deep = await server.call("list_dir", { path: "src", depth: 2 });
    const paths = deep.structured.entries.map((entry: { path: string }) => entry.path);
    assert(paths.includes("src/deep/er"), paths.join(","));
    assert(!paths.includes("src/deep/er/file.md"), "depth 2 stops above the third level");
    const all = await server.call("list_dir", { depth: 10 });
    const allPaths = all.structured.entries.map((entry: { path: string }) => entry.path);
    assert(allPaths.includes("src/deep/er/file.md"));
    assert(!allPaths.some((path: string) => path.startsWith("src_link/") || path.startsWith("escape_dir/")));
    assert(allPaths.indexOf("src") < allPaths.indexOf("src/main.ts"), "children follow their directory");
    const capped = await server.call("list_dir", { depth: 10, limit: 3 });
    assertEquals([capped.structured.entries.length, capped.structured.truncated], [3, true]);
    assertEquals(capped.structured.total_seen, all.structured.total_seen);
    assertEquals(code(await server.call("list_dir", { path: "a.txt" })), "NOT_A_DIRECTORY");
    assertEquals(code(await server.call("list_dir", { path: "escape_dir" })), "PATH_OUTSIDE_WORKSPACE");
    assertEquals(code(await server.call("list_dir", { path: "missing" })), "NOT_FOUND");
    assertEquals(code(await server.call("list_dir", { depth: 11 })), "INVALID_ARGUMENT");
  });

  await t.step("list_dir and list_files: a name that is not UTF-8 is reported lossy with a flag", async () => {
    const dir = await server.call("list_dir", {});
    const bad = dir.structured.entries.find((entry: { name_lossy?: boolean }) => entry.name_lossy);
    assertEquals(bad?.name, "bad\uFFFDname.txt");
    const files = await server.call("list_files", { glob: "bad*" });
    assertEquals(files.structured.files, [{ path: "bad\uFFFDname.txt", size: null, mtime: null, path_lossy: true }]);
    assertEquals(code(await read({ path: "bad\uFFFDname.txt" })), "NOT_FOUND");
  });

  const listed = async (args: Record<string, unknown>) => {
    const result = await server.call("list_files", args);
    assert(!result.isError, result.text);
    return result.structured.files.map((file: { path: string }) => file.path);
  };

  await t.step(
    "list_files: git ignore semantics (nested files, negation, info/exclude), hidden, symlinks",
    async () => {
      const files = await listed({});
      assertEquals(files, [
        "a.txt",
        "bad\uFFFDname.txt",
        "big.bin",
        "bom.txt",
        "crlf.txt",
        "docs/guide.md",
        "empty.txt",
        "keep.log",
        "latin1.txt",
        "long.txt",
        "open.txt",
        "src/deep/er/file.md",
        "src/important.gen",
        "src/main.ts",
        "src/util.ts",
        "src/util_test.ts",
      ]);
      const everything = await listed({ respect_gitignore: false, include_hidden: true });
      for (const path of ["app.log", "build/out.js", "src/gen/g.ts", "src/x.gen", "excluded.txt", ".env"]) {
        assert(everything.includes(path), path);
      }
      assert(!everything.some((path: string) => path.startsWith(".git/")), ".git itself is never listed");
      assert(!everything.some((path: string) => /escape|link|dangling|fifo/.test(path)), "symlinks are not listed");
      const hidden = await listed({ include_hidden: true });
      assert(hidden.includes(".env") && hidden.includes(".hidden/inner.ts") && !hidden.includes("app.log"));
    },
  );

  await t.step("list_files pages: every file once; a change through apply_patch between pages is listed", async () => {
    const names = Array.from({ length: 30 }, (_, i) => `paged/p${String(i).padStart(2, "0")}.txt`);
    const adds = names.map((name) => `*** Add File: ${name}\n+x`).join("\n");
    assert(!(await server.call("apply_patch", { patch: `*** Begin Patch\n${adds}\n*** End Patch\n` })).isError);
    const page = async (cursor?: string) => {
      const result = await server.call("list_files", { path: "paged", limit: 10, ...(cursor ? { cursor } : {}) });
      assert(!result.isError, result.text);
      const files = (result.structured.files as { path: string }[]).map((file) => file.path);
      return { files, cursor: result.structured.next_cursor as string | null };
    };
    const first = await page();
    const second = await page(first.cursor!);
    assertEquals([...first.files, ...second.files], names.slice(0, 20));
    // The second page came from the listing the first one kept; a patch drops it, so the third walks again.
    const late = "paged/p25a.txt";
    assert(
      !(await server.call("apply_patch", { patch: `*** Begin Patch\n*** Add File: ${late}\n+x\n*** End Patch\n` }))
        .isError,
    );
    const third = await page(second.cursor!);
    assertEquals(third.files, [...names.slice(20, 26), late, ...names.slice(26, 29)]);
    const fourth = await page(third.cursor!);
    assertEquals([fourth.files, fourth.cursor], [[names[29]], null]);
    await Deno.remove(`${ws}/paged`, { recursive: true }); // the steps below count the whole tree
  });

  await t.step("list_files: globs, ignore patterns, path", async () => {
    assertEquals(await listed({ glob: "**/*.ts" }), ["src/main.ts", "src/util.ts", "src/util_test.ts"]);
    assertEquals(await listed({ glob: ["*.ts", "!*_test.ts"] }), ["src/main.ts", "src/util.ts"]);
    assertEquals(await listed({ glob: "src/*.ts" }), ["src/main.ts", "src/util.ts", "src/util_test.ts"]);
    assertEquals(await listed({ glob: "*.md" }), ["docs/guide.md", "src/deep/er/file.md"]);
    assertEquals(await listed({ glob: "*.log" }), ["keep.log"], "a glob never brings back an ignored file");
    assertEquals(await listed({ glob: "*.ts", include_hidden: true }), [
      ".hidden/inner.ts",
      "src/main.ts",
      "src/util.ts",
      "src/util_test.ts",
    ]);
    assertEquals(await listed({ path: "src", glob: "*.ts", ignore: ["*_test.ts"] }), ["src/main.ts", "src/util.ts"]);
    assertEquals(await listed({ path: "src", ignore: ["/deep/", "*.gen"] }), [
      "src/main.ts",
      "src/util.ts",
      "src/util_test.ts",
    ]);
    assertEquals(await listed({ path: "src_link", glob: "main.ts" }), ["src/main.ts"]);
    assertEquals(code(await server.call("list_files", { glob: "" })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("list_files", { ignore: ["!keep.log"] })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("list_files", { limit: 0 })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("list_files", { path: "a.txt" })), "NOT_A_DIRECTORY");
    assertEquals(code(await server.call("list_files", { path: "escape_dir" })), "PATH_OUTSIDE_WORKSPACE");
  });

  await t.step("list_files: sort, limit, truncated and total_matched", async () => {
    const bySize = await server.call("list_files", { sort: "size", limit: 2 });
    assertEquals(bySize.structured.files.map((file: { path: string }) => file.path), ["big.bin", "long.txt"]);
    assertEquals([bySize.structured.truncated, bySize.structured.total_matched], [true, 16]);
    assertEquals(bySize.structured.files[0].size, 3000);
    const byTime = await server.call("list_files", { sort: "mtime", limit: 1 });
    assertEquals(byTime.structured.files[0].path, "src/util.ts");
    assert(typeof byTime.structured.files[0].mtime === "string");
    const none = await server.call("list_files", { sort: "none", limit: 5 });
    assertEquals([none.structured.files.length, none.structured.truncated, none.structured.total_matched], [
      5,
      true,
      null,
    ]);
    const all = await server.call("list_files", { sort: "none", limit: 1000 });
    assertEquals([all.structured.truncated, all.structured.total_matched], [false, 16]);
    assertEquals(code(await server.call("list_files", { sort: "name" })), "INVALID_ARGUMENT");
  });

  await Deno.remove(ws, { recursive: true });
  await Deno.remove(outside, { recursive: true });
});

Deno.test("unreadable files and directories (server without DAC override, as root would otherwise read them)", async () => {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws}/locked.txt`, "secret needle\n");
  await Deno.writeTextFile(`${ws}/open.txt`, "open needle\n");
  await Deno.writeTextFile(`${ws}/p1.txt`, "p1 needle\n");
  await Deno.mkdir(`${ws}/closed`);
  await Deno.writeTextFile(`${ws}/closed/inner.txt`, "inner needle\n");
  await Deno.mkdir(`${ws}/only/shut`, { recursive: true });
  await Deno.chmod(`${ws}/locked.txt`, 0o000);
  await Deno.chmod(`${ws}/closed`, 0o000);
  await Deno.chmod(`${ws}/only/shut`, 0o000);
  {
    await using server = await startServer({
      workspace: ws,
      wrapper: ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"],
    });
    const read = await server.call("read_file", { path: "locked.txt" });
    assertEquals(code(read), "PERMISSION_DENIED", read.text);
    const dir = await server.call("list_dir", { depth: 2 });
    assert(!dir.isError, dir.text);
    assertEquals(dir.structured.skipped.map((item: { path: string }) => item.path), ["closed"]);
    const files = await server.call("list_files", {});
    assertEquals(files.structured.files.map((file: { path: string }) => file.path), [
      "locked.txt",
      "open.txt",
      "p1.txt",
    ]);
    assert(files.structured.warnings.some((warning: string) => warning.includes("closed")), files.text);
    // Nothing listable but an unreadable subdirectory: an empty listing with the warning, not a failure.
    const only = await server.call("list_files", { path: "only" });
    assertEquals([only.isError, only.structured.files], [false, []]);
    assertEquals(only.structured.warnings, ["rg: only/shut: Permission denied (os error 13)"]);
    const search = await server.call("search_text", { pattern: "needle" });
    assertEquals(search.structured.matches.map((match: { path: string }) => match.path), ["open.txt", "p1.txt"]);
    assert(search.structured.warnings.length >= 1, search.text);
    // A run that warned is not kept for the next pages: each page runs rg again, and says so again.
    let cursor: string | null = null;
    const pages: string[][] = [];
    do {
      const args = { pattern: "needle", max_results: 1, ...(cursor === null ? {} : { cursor }) };
      const page: CallResult = await server.call("search_text", args);
      assert(!page.isError && page.structured.warnings.length >= 1, page.text);
      pages.push(page.structured.matches.map((match: { path: string }) => match.path));
      cursor = page.structured.next_cursor;
    } while (cursor !== null);
    assertEquals(pages, [["open.txt"], ["p1.txt"]]);
  }
  await Deno.chmod(`${ws}/closed`, 0o755);
  await Deno.chmod(`${ws}/only/shut`, 0o755);
  await Deno.remove(ws, { recursive: true });
});
