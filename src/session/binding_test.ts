import { assert, assertEquals } from "../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { parseArgs } from "../config.ts";
import { probeFacts } from "../services.ts";
import { type Bound, openChoice, WorkspaceBinding } from "./binding.ts";

const call = (id: number, signal = new AbortController().signal) => ({
  id,
  request: { method: "tools/call", params: { name: "server_info", arguments: {} } },
  signal,
});

Deno.test("WorkspaceBinding: calls wait while pending and are listed; a cancelled one stops waiting and is not", async () => {
  const binding = new WorkspaceBinding();
  let started = 0;
  binding.onFirstWait(() => started++);
  const cancel = new AbortController();
  const first = binding.wait(call(1));
  const second = binding.wait(call(2, cancel.signal));
  assertEquals(started, 1);
  assertEquals(binding.waitingCalls().map((waiting) => waiting.id), [1, 2]);
  cancel.abort();
  await second;
  assertEquals(binding.waitingCalls().map((waiting) => waiting.id), [1]);
  assertEquals([...binding.heldIds()], [1, 2]);
  assert(binding.pending);
  assertEquals(binding.noWorkspace()?.message, "no workspace yet: the client's roots are being asked");
  binding.settle({ choice: { dir: "/", source: "cwd" }, reason: "refused here" });
  await first;
  assertEquals([binding.pending, binding.bound, binding.waitingCalls()], [false, null, []]);
  const error = binding.noWorkspace();
  assert(error instanceof ToolError && error.code === "NO_WORKSPACE" && error.message === "no workspace: refused here");
  // Only the first outcome counts.
  binding.settle({ choice: null, reason: "later" });
  assertEquals(binding.refusal?.reason, "refused here");
  await binding.wait(call(3));
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
