/**
 * The apply_patch scenarios (tests/patch_scenarios/*), each run through the
 * real server and the SDK client: the tree afterwards must equal `after/`,
 * or, for an error scenario, the code must match and the tree must be
 * byte-identical to `before/` (no partial writes, no stray temp files).
 */
import { assert, assertEquals } from "./assert.ts";
import { startServer, tempWorkspace } from "./harness.ts";
import {
  clearDir,
  expectedTree,
  loadScenarios,
  prepare,
  setImmutable,
  snapshot,
  treeDifferences,
} from "./patch_scenarios.ts";

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
