import { assert, assertEquals } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { parseArgs } from "../config.ts";
import { probeFacts } from "../services.ts";
import { type Bound, openChoice, WorkspaceBinding } from "./binding.ts";

Deno.test("WorkspaceBinding: calls wait while pending; a cancelled one stops waiting", async () => {
  const binding = new WorkspaceBinding();
  let started = 0;
  binding.onFirstWait(() => started++);
  const cancel = new AbortController();
  let firstDone = false;
  const first = binding.wait(new AbortController().signal).then(() => firstDone = true);
  const second = binding.wait(cancel.signal);
  assertEquals(started, 1);
  cancel.abort();
  await second;
  assertEquals(firstDone, false);
  assert(binding.pending);
  assertEquals(binding.noWorkspace()?.message, "no workspace yet: the client's roots are being asked");
  binding.settle({ choice: { dir: "/", source: "cwd" }, reason: "refused here" });
  await first;
  assertEquals([binding.pending, binding.bound, firstDone], [false, null, true]);
  const error = binding.noWorkspace();
  assert(error instanceof ToolError && error.code === "NO_WORKSPACE" && error.message === "no workspace: refused here");
  // Only the first outcome counts.
  binding.settle({ choice: null, reason: "later" });
  assertEquals(binding.refusal?.reason, "refused here");
  await binding.wait();
});

Deno.test("openChoice: a missing directory, / and the home directory are refused; a project is bound with services", async () => {
  const parsed = parseArgs([]);
  assert(parsed.kind === "run");
  const options = { config: parsed.config, facts: await probeFacts(), home: "/root" };
  const missing = await openChoice({ dir: "/nonexistent/x", source: "roots" }, options);
  assertEquals(
    "reason" in missing && missing.reason,
    "workspace /nonexistent/x does not exist (from the client's MCP roots)",
  );
  for (const dir of ["/", "/root"]) {
    const refused = await openChoice({ dir, source: "cwd" }, options);
    assert("reason" in refused && refused.reason.includes("never served implicitly"), dir);
  }
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-binding-" }));
  try {
    const bound = await openChoice({ dir, source: "env" }, options) as Bound;
    assertEquals([bound.workspace.root, bound.choice.source, bound.services.workspaceWritable], [dir, "env", true]);
    const binding = new WorkspaceBinding();
    binding.settle(bound);
    assertEquals(binding.require(), bound);
    await binding.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
