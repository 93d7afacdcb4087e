/**
 * Every apply_patch scenario (tests/patch_scenarios/*) run in-process
 * against the patch module, without a server: the tree afterwards must equal
 * `after/`, or, for an error scenario, the code and the text the agent would
 * read (the error envelope's) must match and the tree must be byte-identical
 * to `before/` (no partial writes, no stray temp files). tests/patch_test.ts
 * runs a sample of them through the MCP client.
 */
import { assert } from "../../testing/assert.ts";
import { clearDir, loadScenarios, type Outcome, runScenario } from "../../testing/patch_scenarios.ts";
import { fail } from "../envelope.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { applyPatch } from "./apply.ts";

const scenarios = await loadScenarios();

Deno.test("there are at least 60 apply_patch scenarios", () => {
  assert(scenarios.length >= 60, `only ${scenarios.length} scenarios`);
});

Deno.test("apply_patch scenarios against the patch module", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-scenarios-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-outside-" }));
  const ws = openWorkspace(root);
  const apply = (patch: string): Promise<Outcome> =>
    applyPatch(ws, patch).then(
      (result) => ({ ok: true, warnings: result.warnings, text: JSON.stringify(result.files) }),
      (error) => {
        const envelope = fail(error);
        const text = envelope.content[0].type === "text" ? envelope.content[0].text : "";
        return { ok: false, code: (envelope.structuredContent as { error: { code: string } }).error.code, text };
      },
    );
  try {
    for (const scenario of scenarios) await t.step(scenario.name, () => runScenario(scenario, root, outside, apply));
  } finally {
    await clearDir(root);
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
