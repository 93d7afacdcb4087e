/**
 * The apply_patch scenarios (tests/patch_scenarios/*), each run through the
 * real server and the SDK client: the tree afterwards must equal `after/`,
 * or, for an error scenario, the code must match and the tree must be
 * byte-identical to `before/` (no partial writes, no stray temp files).
 */
import { assert, assertEquals } from "../src/testing/assert.ts";
import { startServer, tempWorkspace } from "./harness.ts";
import { clearDir, expectedTree, loadScenarios, prepare, setImmutable } from "./patch_scenarios.ts";
import { snapshot, treeDifferences } from "../src/testing/tree_snapshot.ts";

const scenarios = await loadScenarios();

Deno.test("there are at least 60 apply_patch scenarios", () => {
  assert(scenarios.length >= 60, `only ${scenarios.length} scenarios`);
});

Deno.test("apply_patch scenarios through the MCP client", async (t) => {
  await using server = await startServer();
  const outside = await tempWorkspace();
  try {
    for (const scenario of scenarios) {
      await t.step(scenario.name, async () => {
        await prepare(scenario, server.workspace, outside);
        if (scenario.immutable.length > 0 && !(await setImmutable(scenario, server.workspace, true))) {
          console.warn(`${scenario.name}: chattr +i is not available here; fault not injected`);
          return;
        }
        const result = await server.call("apply_patch", { patch: scenario.patch });
        await setImmutable(scenario, server.workspace, false);
        if (scenario.expectError) {
          assert(result.isError, `expected ${scenario.expectError.code}, got success:\n${result.text}`);
          assertEquals(result.structured.error.code, scenario.expectError.code, result.text);
          for (const piece of scenario.expectError.substrings) {
            assert(result.text.includes(piece), `error text lacks ${JSON.stringify(piece)}:\n${result.text}`);
          }
        } else {
          assert(!result.isError, `expected success, got:\n${result.text}`);
          for (const piece of scenario.warnings) {
            const warnings: string[] = result.structured.warnings;
            assert(
              warnings.some((w) => w.includes(piece)),
              `no warning contains ${JSON.stringify(piece)}: ${warnings}`,
            );
          }
          if (scenario.warnings.length === 0) assertEquals(result.structured.warnings, [], "unexpected warnings");
        }
        const problems = treeDifferences(await snapshot(server.workspace), await expectedTree(scenario, outside));
        assertEquals(problems, [], `tree differs:\n${problems.join("\n")}\n${result.text}`);
        if (scenario.hasOutside) {
          const outsideProblems = treeDifferences(await snapshot(outside), await snapshot(`${scenario.dir}/outside`));
          assertEquals(outsideProblems.filter((p) => !p.includes("mode")), [], "the outside tree changed");
        }
      });
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
