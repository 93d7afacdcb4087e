/**
 * apply_patch through the real server and the SDK client: a sample of the
 * scenarios (tests/patch_scenarios/*; all of them run in-process in
 * src/patch/scenarios_test.ts), checked the same way, and what only the tool
 * adds (the per-file report, the bounded diff, the summary text, argument
 * checks).
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, tempWorkspace } from "./harness.ts";
import { clearDir, loadScenarios, runScenario } from "../testing/patch_scenarios.ts";

/** One of each kind: every operation, a tolerant match, CRLF, a miss with the nearest lines, confinement, a git dir, a real fault. */
const SAMPLE = [
  "multi_file_add_update_delete_move",
  "tolerant_typographic_punctuation",
  "crlf_file_stays_crlf",
  "context_not_found_shows_nearest_lines",
  "parse_bad_hunk_line",
  "symlinked_file_to_outside_not_written",
  "git_hook_write_refused",
  "fault_immutable_file_after_first_install",
];

Deno.test("a sample of the apply_patch scenarios through the MCP client", async (t) => {
  const scenarios = new Map((await loadScenarios()).map((scenario) => [scenario.name, scenario]));
  await using server = await startServer();
  const outside = await tempWorkspace();
  try {
    for (const name of SAMPLE) {
      const scenario = scenarios.get(name);
      assert(scenario !== undefined, `no scenario ${name}`);
      await t.step(name, () =>
        runScenario(scenario, server.workspace, outside, async (patch) => {
          const result = await server.call("apply_patch", { patch });
          return result.isError
            ? { ok: false, code: result.structured.error.code, text: result.text }
            : { ok: true, warnings: result.structured.warnings, text: result.text };
        }));
    }
  } finally {
    await clearDir(server.workspace);
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("apply_patch reports each operation, a bounded diff and the summary text", async () => {
  await using server = await startServer();
  const ws = server.workspace;
  await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\n");
  await Deno.writeTextFile(`${ws}/gone.txt`, "x\ny\nz\n");
  await Deno.writeTextFile(`${ws}/old.txt`, "keep\n");
  const result = await server.call("apply_patch", {
    patch: [
      "*** Begin Patch",
      "*** Update File: a.txt",
      "@@",
      " one",
      "-two",
      "+2",
      "+3",
      "*** Delete File: gone.txt",
      "*** Update File: old.txt",
      "*** Move to: sub/new.txt",
      "*** Add File: n.txt",
      "+n",
      "*** End Patch",
    ].join("\n"),
  });
  assert(!result.isError, result.text);
  assertEquals(result.structured.files, [
    { op: "update", path: "a.txt", moved_to: null, added: 2, removed: 1 },
    { op: "delete", path: "gone.txt", moved_to: null, added: 0, removed: 3 },
    { op: "move", path: "old.txt", moved_to: "sub/new.txt", added: 0, removed: 0 },
    { op: "add", path: "n.txt", moved_to: null, added: 1, removed: 0 },
  ]);
  assert(result.structured.diff.includes("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n-two\n+2\n+3\n"));
  assert(result.structured.diff.includes("--- a/gone.txt\n+++ /dev/null\n"));
  assertEquals(result.structured.diff_truncated, false);
  assert(
    result.text.startsWith(
      "Applied the patch to 4 file(s):\nM a.txt (+2 -1)\nD gone.txt (+0 -3)\nR old.txt -> sub/new.txt",
    ),
  );
});

Deno.test("a large patch gets a truncated diff preview but every file in files", async () => {
  await using server = await startServer();
  const lines = Array.from({ length: 200 }, (_, i) => `+line ${i} ${"x".repeat(60)}`);
  const ops = Array.from({ length: 30 }, (_, i) => [`*** Add File: f${i}.txt`, ...lines]).flat();
  const result = await server.call("apply_patch", { patch: ["*** Begin Patch", ...ops, "*** End Patch"].join("\n") });
  assert(!result.isError, result.text);
  assertEquals(result.structured.files.length, 30);
  assertEquals(result.structured.diff_truncated, true);
  assert(new TextEncoder().encode(result.structured.diff).length <= 12 * 1024);
});

Deno.test("a NUL byte or a directory-looking path in a patch is INVALID_ARGUMENT", async () => {
  await using server = await startServer();
  for (const bad of ["a\0b.txt", "dir/"]) {
    const result = await server.call("apply_patch", {
      patch: `*** Begin Patch\n*** Add File: ${bad}\n+x\n*** End Patch`,
    });
    assertEquals(result.structured.error.code, "INVALID_ARGUMENT", result.text);
  }
  assertEquals([...Deno.readDirSync(server.workspace)], []);
});

Deno.test("apply_patch on a file a command keeps locked (flock) ends in TIMEOUT after its wait, nothing written", async () => {
  await using server = await startServer();
  await Deno.writeTextFile(`${server.workspace}/a.txt`, "a\n");
  await Deno.writeTextFile(`${server.workspace}/b.txt`, "b\n");
  const holder = await server.call("exec_command", { cmd: "flock b.txt sleep 60", yield_time_ms: 300 });
  assertEquals(holder.structured.status, "running", holder.text);
  const started = performance.now();
  const result = await server.call("apply_patch", {
    patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch",
  });
  const waited = performance.now() - started;
  assertEquals(result.structured.error?.code, "TIMEOUT", result.text);
  assert(result.text.includes("b.txt is locked (flock) by another process"), result.text);
  assert(result.structured.error.hint.includes("a command holding the lock"), result.text);
  assert(waited >= 10_000 && waited < 20_000, `${waited} ms`);
  assertEquals(await Deno.readTextFile(`${server.workspace}/a.txt`), "a\n", "all or nothing");
  assertEquals(await Deno.readTextFile(`${server.workspace}/b.txt`), "b\n");
  // The server still answers, and the lock of a.txt taken before the wait was released.
  const again = await server.call("apply_patch", {
    patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch",
  });
  assert(!again.isError, again.text);
});
