/**
 * An independent client: the MCP Inspector CLI drives the real server over
 * stdio. Installed on first use into .tools/inspector (gitignored).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { tempWorkspace } from "./harness.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { ensureNpmTool } from "../tasks/npm_tools.ts";

const INSPECTOR_VERSION = "2.12.0";

async function inspector(workspace: string, ...args: string[]) {
  const toolsDir = await ensureNpmTool("inspector", "@modelcontextprotocol/inspector", INSPECTOR_VERSION);
  const inspectorBin = path.join(toolsDir, "node_modules", ".bin", "inspector");
  const server = [Deno.execPath(), ...sourceRunArgs({ http: null }), "--workspace", workspace];
  const out = await new Deno.Command(inspectorBin, {
    // "--" keeps the inspector from reading the server's own flags (e.g. --config) as its options.
    args: ["--cli", "--cwd", workspace, ...args, "--", ...server],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("MCP Inspector CLI: tools/list --strict, a successful and a failing tools/call", async () => {
  const workspace = await tempWorkspace();
  try {
    const list = await inspector(workspace, "--method", "tools/list", "--strict");
    assertEquals(list.code, 0, list.stdout + list.stderr);
    assert(!/Warning|error/i.test(list.stderr), list.stderr);
    assertEquals(JSON.parse(list.stdout).tools.length, 18);

    const info = await inspector(workspace, "--method", "tools/call", "--tool-name", "server_info");
    assertEquals(info.code, 0, info.stdout + info.stderr);
    assertEquals(JSON.parse(info.stdout).structuredContent.workspace.root, workspace);

    const bad = await inspector(
      workspace,
      "--method",
      "tools/call",
      "--tool-name",
      "server_info",
      "--tool-arg",
      "bogus=1",
    );
    assertEquals(bad.code, 5, "exit 5 is the inspector's 'tool returned isError'");
    assert(bad.stdout.includes("INVALID_ARGUMENT"), bad.stdout);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
