import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { ErrorCode, McpError } from "../src/sdk/mod.ts";
import { startServer } from "./harness.ts";
import { loadCatalog } from "../src/catalog.ts";

const NAMES = [
  "server_info",
  "check_exec_environment",
  "read_file",
  "list_dir",
  "list_files",
  "search_text",
  "apply_patch",
  "exec_command",
  "write_stdin",
  "kill_command",
  "read_output",
  "git_status",
  "git_diff",
  "git_log",
  "git_show",
  "git_blame",
  "request_permissions",
  "view_image",
];

Deno.test("tools/list: exactly the 18 tools in contract order, listChanged false, schemas and annotations", async () => {
  await using server = await startServer();
  const { tools } = await server.client.listTools();
  assertEquals(tools.map((tool) => tool.name), NAMES);
  assertEquals(server.client.getServerCapabilities()?.tools?.listChanged, false);
  for (const tool of tools) {
    assertEquals(tool.inputSchema.type, "object", tool.name);
    assertEquals(tool.outputSchema?.type, "object", tool.name);
    const annotations = tool.annotations!;
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
      assertEquals(typeof annotations[hint], "boolean", `${tool.name}.${hint}`);
    }
    const real = (await loadCatalog()).find((entry) => entry.name === tool.name)!;
    assertEquals({ ...annotations, title: undefined }, { ...real.annotations, title: undefined }, tool.name);
  }
});

Deno.test("--disable-view-image leaves 17 tools and calling view_image answers TOOL_DISABLED", async () => {
  await using server = await startServer({ args: ["--disable-view-image"] });
  const { tools } = await server.client.listTools();
  assertEquals(tools.map((tool) => tool.name), NAMES.filter((name) => name !== "view_image"));
  const result = await server.call("view_image", { path: "x.png" });
  assert(result.isError);
  assertEquals(result.structured.error.code, "TOOL_DISABLED");
  const info = await server.call("server_info");
  assertEquals(info.structured.catalog.view_image_enabled, false);
  assertEquals(info.structured.catalog.count, 17);
});

Deno.test("--dangerously-fake-readonly-annotations marks tools/list read-only, server_info keeps the real ones", async () => {
  await using server = await startServer({ args: ["--dangerously-fake-readonly-annotations"] });
  const { tools } = await server.client.listTools();
  for (const tool of tools) assertEquals(tool.annotations?.readOnlyHint, true, tool.name);
  const info = await server.call("server_info");
  const applyPatch = info.structured.catalog.tools.find((tool: { name: string }) => tool.name === "apply_patch");
  assertEquals(applyPatch.annotations.readOnlyHint, false);
  assertEquals(applyPatch.annotations.destructiveHint, true);
  assertEquals(info.structured.policy.fake_readonly_annotations, true);
});

Deno.test("modes never change the tool list", async () => {
  for (const mode of ["safe", "trusted", "dangerous"]) {
    await using server = await startServer({ args: ["--mode", mode] });
    const { tools } = await server.client.listTools();
    assertEquals(tools.map((tool) => tool.name), NAMES, mode);
  }
});

Deno.test("unknown properties and wrong types are INVALID_ARGUMENT naming the field", async () => {
  await using server = await startServer();
  const wrongType = await server.call("read_file", { path: 42 });
  assert(wrongType.isError);
  assertEquals(wrongType.structured.error.code, "INVALID_ARGUMENT");
  assertEquals(wrongType.structured.error.details.fields, ["path"]);
  const unknown = await server.call("server_info", { bogus: true });
  assertEquals(unknown.structured.error.code, "INVALID_ARGUMENT");
  assertEquals(unknown.structured.error.details.fields, ["bogus"]);
  assert(unknown.text.includes("bogus"));
  const missing = await server.call("search_text", {});
  assertEquals(missing.structured.error.details.fields, ["pattern"]);
  const range = await server.call("list_dir", { depth: 11 });
  assertEquals(range.structured.error.details.fields, ["depth"]);
});

Deno.test("an unknown tool is a JSON-RPC error -32602 (MCP 2025-11-25: a protocol error), the session goes on", async () => {
  await using server = await startServer();
  const error = await assertRejects(() => server.client.callTool({ name: "no_such_tool", arguments: {} }));
  assert(error instanceof McpError, String(error));
  assertEquals(error.code, ErrorCode.InvalidParams);
  assert(error.message.includes('Unknown tool: "no_such_tool"'), error.message);
  assert(!(await server.call("server_info")).isError, "the session goes on");
});
