/**
 * End-to-end: search_text through the SDK client, every parameter and error
 * code, symlink escapes, binary files, non-UTF-8 names, and the cap that
 * ends rg at once.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";
import { children, eventually, fdTargets } from "./reliability/proc.ts";

/** Linux-only: these count the rg processes running in a directory through /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";

const encoder = new TextEncoder();

async function write(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = `${root}/${name}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(file, typeof content === "string" ? encoder.encode(content) : content);
  }
}

function code(result: CallResult): string | undefined {
  return result.isError ? result.structured.error.code : undefined;
}

type Match = { path: string; line: number; column: number; text: string; before: string[]; after: string[] };

Deno.test("search_text end to end", { ignore: LINUX_ONLY }, async (t) => {
  const ws = await tempWorkspace();
  const outside = await tempWorkspace();
  await write(outside, { "secret.txt": "needle outside\n" });
  await write(ws, {
    "a.txt": "alpha\nneedle one\nbeta\nNeedle two\ngamma\n",
    "dots.txt": "a.b literal\naxb regex only\n",
    "src/code.ts": "const x = 1;\n// needle in code\n",
    "src/code_test.ts": "// needle in test\n",
    ".hidden/h.txt": "needle hidden\n",
    ".gitignore": "ignored/\n*.log\n",
    "ignored/i.txt": "needle ignored\n",
    "app.log": "needle log\n",
    "binary.dat": new Uint8Array([...encoder.encode("needle binary\n"), 0, 1, 2, 0x0a]),
    "long.txt": "x".repeat(2000) + "needle" + "y".repeat(2000) + "\n",
    "ctx.txt": "l1\nl2\nl3 needle\nl4\nl5\nl6\nl7 needle\nl8\n",
    "crlf.txt": "needle crlf\r\n",
    "huge.txt": "z".repeat(300_000) + "farpoint" + "z".repeat(300_000) + "\nfarpoint again\n",
  });
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/escape.txt`);
  await Deno.symlink(outside, `${ws}/escape_dir`);
  await new Deno.Command("sh", { args: ["-c", `printf 'needle bad\\n' > "$1/bad$(printf '\\377')name.txt"`, "sh", ws] })
    .output();
  await using server = await startServer({ workspace: ws });
  const search = async (args: Record<string, unknown>) => {
    const result = await server.call("search_text", args);
    assert(!result.isError, result.text);
    return result.structured as { matches: Match[]; files_matched: number; truncated: boolean; stopped_early: boolean };
  };
  const paths = (found: { matches: Match[] }) => [...new Set(found.matches.map((match) => match.path))].sort();

  await t.step("literal by default, regex on request; bad regex is INVALID_ARGUMENT with rg's reason", async () => {
    assertEquals((await search({ pattern: "a.b" })).matches.map((match) => match.text), ["a.b literal"]);
    const regex = await search({ pattern: "a.b", regex: true, path: "dots.txt" });
    assertEquals(regex.matches.map((match) => match.line), [1, 2]);
    const bad = await server.call("search_text", { pattern: "a(", regex: true });
    assertEquals(code(bad), "INVALID_ARGUMENT");
    assert(/unclosed group/i.test(bad.structured.error.message), bad.text);
    assertEquals(bad.structured.error.details.field, "pattern");
    assertEquals(code(await server.call("search_text", { pattern: "a(" })), undefined, "literal ( is fine");
    assertEquals(code(await server.call("search_text", { pattern: "a\nb" })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("search_text", { pattern: "" })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("search_text", { pattern: "x", max_results: 0 })), "INVALID_ARGUMENT");
    assertEquals(code(await server.call("search_text", { pattern: "x", context: 11 })), "INVALID_ARGUMENT");
  });

  await t.step(
    "matches carry path, line, byte column and text; files_matched; gitignore and binary skipped",
    async () => {
      const found = await search({ pattern: "needle", case: "sensitive" });
      assertEquals(paths(found), [
        "a.txt",
        "bad\uFFFDname.txt",
        "crlf.txt",
        "ctx.txt",
        "long.txt",
        "src/code.ts",
        "src/code_test.ts",
      ]);
      assertEquals(found.files_matched, 7);
      assertEquals([found.truncated, found.stopped_early], [false, false]);
      const inA = found.matches.find((match) => match.path === "a.txt")!;
      assertEquals([inA.line, inA.column, inA.text, inA.before, inA.after], [2, 1, "needle one", [], []]);
      assertEquals(found.matches.find((match) => match.path === "src/code.ts")!.column, 4);
      assertEquals(found.matches.find((match) => match.path === "crlf.txt")!.text, "needle crlf");
      const lossy = found.matches.find((match) => match.path.startsWith("bad")) as Match & { path_lossy?: boolean };
      assertEquals(lossy.path_lossy, true);
    },
  );

  await t.step("case: smart, sensitive, insensitive", async () => {
    const lines = async (args: Record<string, unknown>) =>
      (await search({ path: "a.txt", ...args })).matches.map((match) => match.line);
    assertEquals(await lines({ pattern: "needle" }), [2, 4]);
    assertEquals(await lines({ pattern: "Needle" }), [4]);
    assertEquals(await lines({ pattern: "needle", case: "sensitive" }), [2]);
    assertEquals(await lines({ pattern: "NEEDLE", case: "insensitive" }), [2, 4]);
  });

  await t.step("glob and hidden filters; a glob never brings back an ignored file", async () => {
    assertEquals(paths(await search({ pattern: "needle", glob: "*.ts" })), ["src/code.ts", "src/code_test.ts"]);
    assertEquals(paths(await search({ pattern: "needle", glob: ["src/**", "!*_test.ts"] })), ["src/code.ts"]);
    assertEquals(paths(await search({ pattern: "needle", path: "src", glob: "/code.ts" })), ["src/code.ts"]);
    assertEquals(paths(await search({ pattern: "needle", glob: "*.log" })), []);
    assertEquals(paths(await search({ pattern: "needle", glob: "*.txt", include_hidden: true })), [
      ".hidden/h.txt",
      "a.txt",
      "bad\uFFFDname.txt",
      "crlf.txt",
      "ctx.txt",
      "long.txt",
    ]);
    assertEquals(code(await server.call("search_text", { pattern: "x", glob: [""] })), "INVALID_ARGUMENT");
    assertEquals(
      paths(await search({ pattern: "needle", path: "a.txt", glob: "*.md" })),
      ["a.txt"],
      "a file path ignores glob",
    );
  });

  await t.step("symlinks are never followed out of the workspace", async () => {
    const found = await search({ pattern: "outside", include_hidden: true });
    assertEquals(found.matches, []);
    assertEquals(
      code(await server.call("search_text", { pattern: "needle", path: "escape.txt" })),
      "PATH_OUTSIDE_WORKSPACE",
    );
    assertEquals(
      code(await server.call("search_text", { pattern: "needle", path: "escape_dir" })),
      "PATH_OUTSIDE_WORKSPACE",
    );
    assertEquals(code(await server.call("search_text", { pattern: "needle", path: "../" })), "PATH_OUTSIDE_WORKSPACE");
    assertEquals(code(await server.call("search_text", { pattern: "needle", path: "nope" })), "NOT_FOUND");
  });

  await t.step("a FIFO is NOT_A_FILE at once, never opened", async () => {
    await new Deno.Command("mkfifo", { args: [`${ws}/pipe`] }).output();
    const result = await server.call("search_text", { pattern: "needle", path: "pipe" });
    assertEquals([result.isError, result.structured.error?.code], [true, "NOT_A_FILE"]);
    await Deno.remove(`${ws}/pipe`);
  });

  await t.step("context lines before and after", async () => {
    const found = await search({ pattern: "needle", path: "ctx.txt", context: 2 });
    assertEquals(found.matches.map((match) => [match.line, match.before, match.after]), [
      [3, ["l1", "l2"], ["l4", "l5"]],
      [7, ["l5", "l6"], ["l8"]],
    ]);
    const capped = await search({ pattern: "needle", path: "ctx.txt", context: 2, max_results: 1 });
    assertEquals(capped.matches.map((match) => [match.line, match.before, match.after]), [[3, ["l1", "l2"], [
      "l4",
      "l5",
    ]]]);
    assertEquals(capped.truncated, true, "the cap keeps the last match's after-context complete");
    const result = await server.call("search_text", { pattern: "needle", path: "ctx.txt", context: 1 });
    assert(result.text.includes("ctx.txt-2-l2\nctx.txt:3:4:l3 needle\nctx.txt-4-l4"), result.text);
  });

  await t.step("max_line_bytes trims long lines keeping the match in view", async () => {
    const found = await search({ pattern: "needle", path: "long.txt", max_line_bytes: 60 });
    const [match] = found.matches;
    assert(new TextEncoder().encode(match.text).length <= 60, match.text);
    assert(match.text.includes("needle") && match.text.startsWith("…") && match.text.endsWith("…"), match.text);
    assertEquals(match.column, 2001);
    const huge = await search({ pattern: "farpoint", path: "huge.txt" });
    assertEquals(huge.matches.map((found) => [found.line, found.column]), [[1, 300_001], [2, 1]]);
    assert(huge.matches[0].text.includes("farpoint") && encoder.encode(huge.matches[0].text).length <= 500);
  });

  await t.step("max_results caps, marks truncated and stopped_early", async () => {
    const found = await search({ pattern: "needle", max_results: 2, case: "sensitive" });
    assertEquals([found.matches.length, found.truncated, found.stopped_early], [2, true, true]);
    const exact = await search({ pattern: "needle", path: "a.txt", max_results: 2 });
    assertEquals([exact.matches.length, exact.truncated, exact.stopped_early], [2, false, false]);
  });

  await t.step("pages read from what a run read ahead are the pages a new rg run gives", async () => {
    // A tool that may write (kill_command) drops what the session kept: every page after it runs rg again.
    const pages = async (args: Record<string, unknown>, fresh: boolean) => {
      await server.call("kill_command", { command_id: "none" });
      const out: unknown[] = [];
      let cursor: string | null = null;
      do {
        if (fresh) await server.call("kill_command", { command_id: "none" });
        const result: CallResult = await server.call("search_text", cursor === null ? args : { ...args, cursor });
        assert(!result.isError, result.text);
        out.push({ structured: result.structured, text: result.text });
        cursor = result.structured.next_cursor;
      } while (cursor !== null);
      return out;
    };
    for (
      const args of [
        { pattern: "needle", max_results: 1 },
        { pattern: "needle", max_results: 2, context: 1, include_hidden: true },
        { pattern: "l[0-9]|needle", regex: true, max_results: 3, max_line_bytes: 64 },
        { pattern: "farpoint", path: "huge.txt", max_results: 1 },
      ]
    ) {
      const walked = await pages(args, true);
      assert(walked.length > 1, JSON.stringify(args));
      assertEquals(await pages(args, false), walked, JSON.stringify(args));
    }
  });

  await Deno.remove(ws, { recursive: true });
  await Deno.remove(outside, { recursive: true });
});

/** rg processes whose working directory is `dir`. */
async function rgRunningIn(dir: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const comm = (await Deno.readTextFile(`/proc/${entry.name}/comm`)).trim();
      if (comm === "rg" && (await Deno.readLink(`/proc/${entry.name}/cwd`)) === dir) count++;
    } catch {
      // The process exited meanwhile.
    }
  }
  return count;
}

Deno.test("a capped search over a large tree returns long before an uncapped one, and rg is ended at once", {
  ignore: LINUX_ONLY,
}, async () => {
  const ws = await tempWorkspace();
  const filler = encoder.encode(("filler line without the word we look for\n").repeat(7_000)); // ~300 KB
  const head = encoder.encode("needle at the top\n");
  for (let i = 0; i < 1000; i++) {
    const dir = `${ws}/d${i % 30}`;
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(`${dir}/f${i}.txt`, { write: true, create: true });
    await file.write(head);
    await file.write(filler);
    file.close();
  }
  // A ceiling that holds all 1000 matches in one page.
  await using server = await startServer({ workspace: ws, args: ["--max-result-chars", "500000"] });
  await server.call("search_text", { pattern: "warm the page cache", max_results: 1 });
  // Best of three for each side: the suite runs test files in parallel on two cores, so one call can stall.
  const timed = async (max_results: number) => {
    let best: { ms: number; result: Awaited<ReturnType<typeof server.call>> } | null = null;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      const result = await server.call("search_text", { pattern: "needle", max_results });
      const ms = performance.now() - start;
      if (best === null || ms < best.ms) best = { ms, result };
    }
    return best!;
  };
  const uncapped = await timed(2000);
  assertEquals(uncapped.result.structured.matches.length, 1000);
  assertEquals(uncapped.result.structured.stopped_early, false);
  const capped = await timed(5);
  assertEquals([capped.result.structured.matches.length, capped.result.structured.truncated], [5, true]);
  assertEquals(capped.result.structured.stopped_early, true);
  assertEquals(await rgRunningIn(ws), 0, "rg is not left running after the cap");
  console.error(`capped ${capped.ms.toFixed(1)} ms, uncapped ${uncapped.ms.toFixed(1)} ms`);
  assert(capped.ms * 3 < uncapped.ms, `capped ${capped.ms} ms vs uncapped ${uncapped.ms} ms`);
  await Deno.remove(ws, { recursive: true });
});

Deno.test("search_text and list_files leave no rg, pipe, pidfd or zombie behind, on every way a run ends", async () => {
  const ws = await tempWorkspace();
  for (let i = 0; i < 300; i++) await write(ws, { [`d${i % 10}/f${i}.txt`]: "needle\n".repeat(50) });
  // Trusted mode: `echo $PPID` is shell syntax, which the safe-mode gate refuses.
  await using server = await startServer({ workspace: ws, args: ["--mode", "trusted"] });
  const pid = Number((await server.call("exec_command", { cmd: "echo $PPID" })).structured.stdout.trim());
  // The first search starts the sandbox worker and the reactor's wake-up eventfd: they stay for the process's life.
  await server.call("search_text", { pattern: "needle", max_results: 1 });
  assert(await eventually(() => children(pid).length === 0), "a child is left after the warm-up");
  const before = fdTargets(pid);
  const calls: [string, Record<string, unknown>][] = [
    ["search_text", { pattern: "needle", max_results: 1 }], // killed at the cap
    ["search_text", { pattern: "needle", max_results: 2000 }], // read to the end
    ["search_text", { pattern: "needle", path: "d1/f1.txt" }], // a single file, from its pinned parent
    ["search_text", { pattern: "a(", regex: true }], // rg fails
    ["search_text", { pattern: "needle", path: "missing" }], // refused before rg starts
    ["list_files", { sort: "none", limit: 1 }], // killed at the cap
    ["list_files", { sort: "size" }], // read to the end, every file stat'ed
    ["list_files", { path: "d1/f1.txt" }], // NOT_A_DIRECTORY
  ];
  for (let round = 0; round < 5; round++) {
    await Promise.all(calls.map(([tool, args]) => server.call(tool, args)));
  }
  assert(await eventually(() => children(pid).length === 0), `children left: ${JSON.stringify(children(pid))}`);
  const leaked = () => fdTargets(pid).filter((target) => !before.includes(target) && /pipe|pidfd/.test(target));
  await eventually(() => leaked().length === 0);
  assertEquals(leaked(), []);
  await Deno.remove(ws, { recursive: true });
});
