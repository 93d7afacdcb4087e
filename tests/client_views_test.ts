/**
 * Client views: what a model reads of every result, in both forms clients
 * give it. Claude Code and VS Code hand over `JSON.stringify(structuredContent)`
 * (persisting anything over 50,000 characters to a file), content-only
 * clients the text. On the repository of the client-views issue (1,500
 * source files, a 5,000-line file, 1,200 commits, a 300-file unstaged diff),
 * for every tool at default arguments and at the largest arguments it allows:
 *
 * (a) the structured JSON is within the ceiling (at default arguments within
 *     32,000 characters); (b) the text is within 16 KiB, never cut by the
 *     envelope, its header true to what it shows; (c) when more remains, the
 *     text's last line is a next call that, executed as written, continues
 *     right after the last item the text showed, and the structured resume
 *     point right after the structured page; (d) paging to the end returns
 *     every item exactly once.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace, type TestServer } from "./harness.ts";
import { createClientViewsRepo } from "./client_views_repo.ts";
import { git } from "../testing/git_fixtures.ts";
import { DEFAULT_MAX_RESULT_CHARS, DEFAULT_PAGE_TARGET_CHARS, MAX_TEXT_BYTES } from "../src/paging/budget.ts";
import { MAX_INSTRUCTIONS_BYTES } from "../src/instructions.ts";

const repo = await createClientViewsRepo(`${await tempWorkspace()}/repo`);
const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;
/** Tests of this file share one server on the repository (read-only tools only; commands get their own). */
let started: Promise<TestServer> | null = null;
const sharedServer = () => started ??= startServer({ workspace: repo.dir });

/** (a) and (b) for any result; `defaults` holds it to the page target instead of the ceiling. */
function checkViews(result: CallResult, what: string, defaults: boolean, ceiling = DEFAULT_MAX_RESULT_CHARS): void {
  assert(!result.isError, `${what}: ${result.text.slice(0, 400)}`);
  const chars = JSON.stringify(result.structured).length;
  const bound = defaults ? DEFAULT_PAGE_TARGET_CHARS : ceiling;
  assert(chars <= bound, `${what}: structuredContent is ${chars} characters, over ${bound}`);
  assert(bytes(result.text) <= MAX_TEXT_BYTES, `${what}: text is ${bytes(result.text)} bytes`);
  assert(!result.text.includes("more bytes cut from this text"), `${what}: the envelope cut the text`);
}

/** The call on a text's last line, when it is one. */
function nextOf(result: CallResult): { tool: string; args: Record<string, unknown> } | null {
  const last = result.text.split("\n").at(-1)!;
  const match = /^next: (\w+) (\{.*\})$/.exec(last);
  return match ? { tool: match[1], args: JSON.parse(match[2]) } : null;
}

/** How a paged tool's items are read from both views, and how its structured page continues. */
interface Paging {
  /** The keys of the structured page's items, in order. */
  items(structured: Record<string, unknown>): string[];
  /** The keys of the items the text shows, in order (a prefix of the page's). */
  shown(text: string): string[];
  /** The arguments that continue after the structured page, or null at the end. */
  resume(structured: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> | null;
}

const byCursor = (structured: Record<string, unknown>, args: Record<string, unknown>) =>
  structured.next_cursor === null ? null : { ...args, cursor: structured.next_cursor };

/** Text lines between the header lines and the trailing warning/next lines. */
function body(text: string, header = 1): string[] {
  return text.split("\n").slice(header).filter((line) => !line.startsWith("next: ") && !line.startsWith("["));
}

const PAGING: Record<string, Paging> = {
  read_file: {
    items: (s) => {
      const lines = (s.text as string).split("\n");
      if (lines.at(-1) === "") lines.pop();
      return lines.map((_, i) => String((s.start_line as number) + i));
    },
    shown: (text) => body(text).map((line) => /^\s*(\d+)\t/.exec(line)![1]),
    resume: (s, args) => s.has_more ? { ...args, offset: s.next_offset } : null,
  },
  list_files: {
    items: (s) => (s.files as { path: string }[]).map((file) => file.path),
    shown: (text) => body(text),
    resume: byCursor,
  },
  list_dir: {
    items: (s) => (s.entries as { path: string }[]).map((entry) => entry.path),
    shown: (text) => body(text).map((line) => line.replace(/(\/| {2}\d+ B| -> .*| \(special file\))$/, "")),
    resume: byCursor,
  },
  search_text: {
    items: (s) => (s.matches as { path: string; line: number }[]).map((match) => `${match.path}:${match.line}`),
    shown: (text) =>
      text.split("\n").flatMap((line) => /^([^\s:]+):(\d+):\d+:/.exec(line)?.slice(1, 3).join(":") ?? []),
    resume: byCursor,
  },
  git_log: {
    items: (s) => (s.commits as { sha: string }[]).map((commit) => commit.sha.slice(0, 12)),
    shown: (text) => body(text).map((line) => line.slice(0, 12)),
    resume: byCursor,
  },
  git_status: {
    items: (s) => (s.entries as { path: string }[]).map((entry) => entry.path),
    shown: (text) => body(text, 2).map((line) => line.slice(3)),
    resume: byCursor,
  },
  git_blame: {
    items: (s) => (s.lines as { line: number }[]).map((line) => String(line.line)),
    shown: (text) => body(text).map((line) => /^[0-9a-f]{8} +(\d+): /.exec(line)![1]),
    resume: byCursor,
  },
};

/**
 * Pages a tool to the end, checking every page in both views and following each text's next call: returns
 * every item key in order.
 */
async function page(
  server: TestServer,
  tool: string,
  args: Record<string, unknown>,
  options: { defaults: boolean },
): Promise<string[]> {
  const paging = PAGING[tool];
  const all: string[] = [];
  let current = args;
  for (let pages = 1;; pages++) {
    const what = `${tool} ${JSON.stringify(current).slice(0, 120)}`;
    const result = await server.call(tool, current);
    checkViews(result, what, options.defaults && pages === 1);
    const items = paging.items(result.structured);
    const shown = paging.shown(result.text);
    assertEquals(shown, items.slice(0, shown.length), `${what}: the text shows the page's first items`);
    assert(shown.length > 0 || items.length === 0, `${what}: the text shows no item`);
    const resume = paging.resume(result.structured, current);
    const next = nextOf(result);
    if (shown.length < items.length) {
      // The text stops before the page does: its next call continues right after the text's last item.
      assert(next !== null, `${what}: the text shows less than its page but ends with no next call`);
      const viaText = await server.call(next.tool, next.args);
      checkViews(viaText, `${what} (the text's next call)`, false);
      assertEquals(paging.items(viaText.structured)[0], items[shown.length], `${what}: text continuation`);
    } else if (resume !== null) {
      // The text shows the whole page: its next call is the structured resume point.
      assert(next !== null, `${what}: more remains but the text ends with no next call`);
      assertEquals([next.tool, next.args], [tool, resume], `${what}: the text's next call`);
    } else assertEquals(next, null, `${what}: a next call when nothing remains`);
    all.push(...items);
    if (resume === null) return all;
    assert(pages < 1000, `${what}: paging does not end`);
    current = resume;
  }
}

function once(keys: string[], what: string): void {
  assertEquals(new Set(keys).size, keys.length, `${what}: an item came twice`);
}

Deno.test("client views: tools/list declares the ceiling on every tool, initialize gives short instructions", async () => {
  const server = await sharedServer();
  const { tools } = await server.client.listTools();
  assertEquals(tools.length, 18);
  for (const tool of tools) assertEquals(tool._meta?.["anthropic/maxResultSizeChars"], DEFAULT_MAX_RESULT_CHARS);
  const instructions = server.client.getInstructions()!;
  assert(bytes(instructions) < MAX_INSTRUCTIONS_BYTES, `${bytes(instructions)} bytes`);
  assert(instructions.includes(repo.dir) && instructions.includes("safe:"), instructions);
  await using raised = await startServer({ workspace: repo.dir, args: ["--max-result-chars", "100000"] });
  const listed = await raised.client.listTools();
  for (const tool of listed.tools) assertEquals(tool._meta?.["anthropic/maxResultSizeChars"], 100_000);
  const big = await raised.call("read_file", { path: "big.ts", max_bytes: 1048576 });
  checkViews(big, "read_file under a raised ceiling", false, 100_000);
  assert(JSON.stringify(big.structured).length > DEFAULT_MAX_RESULT_CHARS, "a raised ceiling holds larger pages");
});

Deno.test("client views: read_file of the 5,000-line file, by default and at its largest, pages to the end", async () => {
  const server = await sharedServer();
  const lines = await page(server, "read_file", { path: "big.ts" }, { defaults: true });
  assertEquals(lines, Array.from({ length: repo.bigLines }, (_, i) => String(i + 1)));
  const largest = { path: "big.ts", limit: 100000, max_bytes: 1048576 };
  assertEquals((await page(server, "read_file", largest, { defaults: false })).length, repo.bigLines);
  // A typical source file comes whole in one page at default arguments.
  const small = await server.call("read_file", { path: repo.sourceFiles[0] });
  checkViews(small, "read_file of a source file", true);
  assertEquals([small.structured.has_more, nextOf(small)], [false, null]);
});

Deno.test("client views: list_files and list_dir page every entry once, in order", async () => {
  const server = await sharedServer();
  const files = await page(server, "list_files", {}, { defaults: true });
  assertEquals(files, repo.files);
  assertEquals(await page(server, "list_files", { limit: 100000 }, { defaults: false }), repo.files);
  for (const sort of ["size", "mtime", "none"]) {
    const sorted = await page(server, "list_files", { sort }, { defaults: true });
    assertEquals([...sorted].sort(), repo.files, sort);
  }
  const tree = await page(server, "list_dir", { depth: 3 }, { defaults: true });
  once(tree, "list_dir depth 3");
  assertEquals(tree.length, repo.files.length + 1 + 15, "every file, src/ and its 15 directories");
  const largest = { depth: 10, limit: 10000, include_hidden: true };
  const deep = await page(server, "list_dir", largest, { defaults: false });
  assertEquals(deep.filter((path) => !path.startsWith(".git")), tree);
  checkViews(await server.call("list_dir", {}), "list_dir", true);
});

Deno.test("client views: search_text pages every match once, with context at its largest", async () => {
  const server = await sharedServer();
  const expected = (await git(repo.dir, "grep", "-n", "--untracked", "-F", "edited")).trim().split("\n")
    .map((line) => line.split(":").slice(0, 2).join(":")).sort();
  const found = await page(server, "search_text", { pattern: "edited" }, { defaults: true });
  once(found, "search_text");
  assertEquals([...found].sort(), expected);
  const largest = { pattern: "export function section", context: 10, max_results: 2000, max_line_bytes: 65536 };
  const sections = await page(server, "search_text", largest, { defaults: false });
  assertEquals(sections.length, repo.bigLines / 50);
  once(sections, "search_text with context");
});

Deno.test("client views: git_log, git_status and git_blame page every commit, entry and line once", async () => {
  const server = await sharedServer();
  const shas = (await git(repo.dir, "log", "--format=%H")).trim().split("\n").map((sha) => sha.slice(0, 12));
  assertEquals(await page(server, "git_log", {}, { defaults: true }), shas);
  assertEquals(await page(server, "git_log", { max_count: 500 }, { defaults: false }), shas);
  const status = await page(server, "git_status", {}, { defaults: true });
  assertEquals(status, [...repo.modified].sort());
  const all = { limit: 5000, include_ignored: true };
  assertEquals(await page(server, "git_status", all, { defaults: false }), status);
  const numbers = Array.from({ length: repo.bigLines }, (_, i) => String(i + 1));
  assertEquals(await page(server, "git_blame", { path: "big.ts" }, { defaults: true }), numbers);
  const largest = { path: "big.ts", start_line: 1, end_line: repo.bigLines, limit: 2000 };
  assertEquals(await page(server, "git_blame", largest, { defaults: false }), numbers);
});

/** The lines of a patch page that are its own (not repeated from the page before). */
function ownLines(structured: Record<string, unknown>, field: "diff" | "patch"): string[] {
  const text = structured[field] as string;
  return text.split("\n").slice(0, -1).slice(structured.repeated_lines as number);
}

/**
 * Pages a patch (git_diff, git_show) in both views: each text shows the first lines of its page, its next call
 * continues right after them, and the pages' own lines make up `expected` (when given, paging to the end).
 */
async function pagePatch(
  server: TestServer,
  tool: "git_diff" | "git_show",
  args: Record<string, unknown>,
  options: { defaults: boolean; expected?: string[]; pages: number },
): Promise<string[]> {
  const field = tool === "git_diff" ? "diff" : "patch";
  const lines: string[] = [];
  const files: string[] = [];
  let current = args;
  for (let pages = 1; pages <= options.pages; pages++) {
    const what = `${tool} ${JSON.stringify(current).slice(0, 120)}`;
    const result = await server.call(tool, current);
    checkViews(result, what, options.defaults && pages === 1);
    const structured = result.structured;
    const page = (structured[field] as string).split("\n").slice(0, -1);
    // The text's patch lines follow the first empty line after the stat lines; notes and next call come last.
    const text = result.text.split("\n");
    const start = text.indexOf("", text.findIndex((line) => / files? changed; /.test(line)));
    const shown = text.slice(start + 1).filter((line) => !line.startsWith("next: ") && !/^\[the patch of /.test(line));
    assertEquals(shown, page.slice(0, shown.length), `${what}: the text shows the page's first lines`);
    const next = nextOf(result);
    const own = ownLines(structured, field);
    if (shown.length < page.length) {
      assert(next !== null, `${what}: the text shows less than its page but ends with no next call`);
      const viaText = await server.call(next.tool, next.args);
      checkViews(viaText, `${what} (the text's next call)`, false);
      assertEquals(ownLines(viaText.structured, field)[0], page[shown.length], `${what}: text continuation`);
    } else if (structured.next_cursor !== null) {
      assertEquals(next?.args, { ...args, cursor: structured.next_cursor }, `${what}: the text's next call`);
    } else assertEquals(next, null, `${what}: a next call at the end`);
    lines.push(...own);
    files.push(...(structured.files as { path: string }[]).map((file) => file.path));
    if (structured.next_cursor === null) break;
    current = { ...args, cursor: structured.next_cursor };
  }
  if (options.expected) {
    assertEquals(lines.length, options.expected.length, `${tool}: lines of all pages`);
    assertEquals(lines, options.expected);
  }
  return files;
}

Deno.test("client views: git_diff pages the 300-file diff to the end; git_show a big commit and a file", async () => {
  const server = await sharedServer();
  const raw = (await git(repo.dir, "diff", "-M")).split("\n").slice(0, -1);
  const files = await pagePatch(server, "git_diff", {}, { defaults: true, expected: raw, pages: 100 });
  assertEquals([...new Set(files)].sort(), [...repo.modified].sort(), "every changed file, on its pages");
  await pagePatch(server, "git_diff", { max_bytes: 1048576, context: 100 }, { defaults: false, pages: 3 });
  const head = (await git(repo.dir, "show", "--format=", "HEAD")).split("\n").slice(0, -1);
  await pagePatch(server, "git_show", { rev: "HEAD" }, { defaults: true, expected: head, pages: 100 });
  await pagePatch(server, "git_show", { rev: "HEAD~1199" }, { defaults: true, pages: 3 });
  await pagePatch(server, "git_show", { rev: "HEAD~1199", max_bytes: 1048576 }, { defaults: false, pages: 3 });
  // A file at a revision: content pages by whole lines, the text's next call right after what it shows.
  for (const args of [{ rev: "HEAD", path: "big.ts" }, { rev: "HEAD", path: "big.ts", max_bytes: 1048576 }]) {
    let content = "";
    let current: Record<string, unknown> = args;
    for (let pages = 1;; pages++) {
      const result = await server.call("git_show", current);
      checkViews(result, `git_show ${JSON.stringify(current)}`, pages === 1 && args.max_bytes === undefined);
      const [, from, to] = /bytes (\d+)-(\d+):/.exec(result.text)!.map(Number);
      assertEquals(from, bytes(content));
      const lines = result.text.split("\n");
      const next = nextOf(result);
      const shown = lines.slice(1, next ? -1 : undefined).join("\n");
      assert(
        result.structured.content.startsWith(shown) && bytes(shown) === to - from,
        "the text shows the page's start",
      );
      if (next) {
        const viaText = await server.call(next.tool, next.args);
        assertEquals(Number(/bytes (\d+)-/.exec(viaText.text)![1]), to, "the text's next call continues after it");
      }
      content += result.structured.content;
      if (result.structured.next_cursor === null) break;
      current = { ...args, cursor: result.structured.next_cursor };
    }
    assertEquals(content, await Deno.readTextFile(`${repo.dir}/big.ts`));
  }
});

Deno.test("client views: a cursor reused with other arguments, or after its history moved, is refused", async () => {
  const server = await sharedServer();
  const first = await server.call("list_files", {});
  const reused = await server.call("list_files", { glob: "*.md", cursor: first.structured.next_cursor });
  assertEquals([reused.structured.error.code, reused.structured.error.details.field], ["INVALID_ARGUMENT", "cursor"]);
  assert(reused.text.includes("Hint: A cursor continues only the call it came from"), reused.text);
  const other = await server.call("git_log", { cursor: first.structured.next_cursor });
  assert(other.structured.error.message.includes("belongs to list_files"), other.text);
  // A log cursor whose last commit is not where its pinned history has it.
  const log = await server.call("git_log", {});
  const cursor = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(log.structured.next_cursor, {
    alphabet: "base64url",
  })));
  cursor.p.h = "0".repeat(40);
  const forged = new TextEncoder().encode(JSON.stringify(cursor)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
  const moved = await server.call("git_log", { cursor: forged });
  assert(moved.structured.error.message.includes("history changed"), moved.text);
});

Deno.test("client views: server_info, check_exec_environment and request_permissions fit both views", async () => {
  const server = await sharedServer();
  for (const [tool, args] of [["server_info", {}], ["check_exec_environment", {}]] as const) {
    checkViews(await server.call(tool, args), tool, true);
  }
  const asked = await server.call("request_permissions", { permissions: ["network"], reason: "x".repeat(2000) });
  checkViews(asked, "request_permissions", true);
});

Deno.test("client views: command output in safe and trusted modes, a large stdout and both streams large", async () => {
  for (const mode of ["safe", "trusted"]) {
    await using server = await startServer({ args: ["--mode", mode] });
    await Deno.writeTextFile(`${server.workspace}/one.sh`, "seq 1 100000\necho oops >&2\necho last\n");
    await Deno.writeTextFile(`${server.workspace}/both.sh`, "seq 1 100000\nseq 100001 200000 >&2\n");
    for (const max_output_bytes of [undefined, 1048576]) {
      const args = { cmd: "sh one.sh", ...(max_output_bytes ? { max_output_bytes } : {}) };
      const result = await server.call("exec_command", args);
      checkViews(result, `${mode} ${JSON.stringify(args)}`, max_output_bytes === undefined);
      const text = result.text.split("\n");
      // stdout's head and tail around a gap line, stderr whole, the status line, the read_output call last.
      assertEquals(text.slice(0, 4), ["$ sh one.sh", "--- stdout ---", "1", "2"]);
      const gap = text.findIndex((line) => /^\[\.\.\. \d+ bytes omitted \(offsets \d+-\d+\) \.\.\.\]$/.test(line));
      assert(gap > 0, result.text.slice(0, 300));
      assertEquals(text.slice(-5, -2), ["last", "--- stderr ---", "oops"]);
      assert(/^exited with code 0 after \d+ ms/.test(text.at(-2)!), text.at(-2));
      const next = nextOf(result)!;
      assertEquals(next.tool, "read_output");
      const [, from] = /offsets (\d+)-/.exec(text[gap])!;
      assertEquals(next.args.offset, Number(from));
      // Executed as written, it returns the bytes right after the text's head.
      const read = await server.call(next.tool, next.args);
      checkViews(read, "read_output", false);
      assertEquals(read.structured.offset, Number(from));
      assertEquals(Number(read.structured.data.split("\n")[0]), Number(text[gap - 1]) + 1);
      const largest = await server.call("read_output", { ...next.args, limit: 65536 });
      checkViews(largest, "read_output at its largest", false);
      const onward = nextOf(largest)!;
      assertEquals(onward.args.offset, Number(/bytes \d+-(\d+) /.exec(largest.text)![1]));
    }
    const both = await server.call("exec_command", { cmd: "sh both.sh" });
    checkViews(both, `${mode} both streams`, true);
    const text = both.text.split("\n");
    const stderr = text.indexOf("--- stderr ---");
    assert(stderr > 0 && text[stderr + 1] === "100001", both.text.slice(0, 200));
    assertEquals(text.filter((line) => line.startsWith("[... ")).length, 2);
    assertEquals(text.slice(-2).map((line) => nextOf({ ...both, text: line })?.args.output_ref), [
      `command:${both.structured.command_id}:stdout`,
      `command:${both.structured.command_id}:stderr`,
    ]);
  }
});

Deno.test("client views: a 2,000-file patch fits both views", async () => {
  await using server = await startServer();
  const adds = Array.from({ length: 2000 }, (_, i) => `*** Add File: many/file_${i}.txt\n+line ${i}`).join("\n");
  const result = await server.call("apply_patch", { patch: `*** Begin Patch\n${adds}\n*** End Patch` });
  checkViews(result, "apply_patch of 2,000 files", false);
  assertEquals(result.structured.total_files, 2000);
  assert(result.structured.files.length < 2000 && result.text.startsWith("Applied the patch to 2000 file(s), "));
});

Deno.test("client views: an item larger than the whole ceiling is RESULT_TOO_LARGE, never a larger result", async () => {
  const ws = await tempWorkspace();
  // Sixteen nested names of 250 control characters: a 4,000-byte path whose JSON is over 24,000 characters.
  const name = "\x01".repeat(250);
  const deep = Array.from({ length: 15 }, () => name).join("/");
  await Deno.mkdir(`${ws}/${deep}`, { recursive: true });
  await Deno.writeTextFile(`${ws}/${deep}/${name}`, "x");
  await using server = await startServer({ workspace: ws, args: ["--max-result-chars", "20000"] });
  const listed = await server.call("list_files", {});
  assertEquals(listed.structured.error.code, "RESULT_TOO_LARGE", listed.text.slice(0, 200));
  assert(JSON.stringify(listed.structured).length < 20_000);
  await Deno.remove(ws, { recursive: true });
});

Deno.test("client views: cleanup", async () => {
  if (started) await (await started).close();
  await Deno.remove(repo.dir.replace(/\/repo$/, ""), { recursive: true });
});
