import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, tempWorkspace } from "./harness.ts";
import { EXCERPT_BYTES } from "../src/project/context.ts";
import {
  SERVER_DESCRIPTION,
  SERVER_INFO_ICON_FILE,
  SERVER_INFO_ICON_SIZE,
  SERVER_TITLE,
  WEBSITE_URL,
} from "../src/metadata.ts";

async function git(cwd: string, ...args: string[]) {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=trunk", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

Deno.test("server_info reports workspace, project context, policy, runtime, auth, protocol and catalog", async () => {
  const workspace = await tempWorkspace();
  const outside = await tempWorkspace();
  try {
    await git(workspace, "init", "-q");
    await Deno.writeTextFile(path.join(workspace, "deno.json"), "{}");
    await Deno.writeTextFile(path.join(workspace, "package.json"), "{}");
    await Deno.writeTextFile(path.join(workspace, "AGENTS.md"), "# Agents\n" + "é".repeat(EXCERPT_BYTES));
    await Deno.writeTextFile(path.join(outside, "secret.md"), "TOP SECRET");
    await Deno.symlink(path.join(outside, "secret.md"), path.join(workspace, "CLAUDE.md"));
    await git(workspace, "add", "-A");
    await git(workspace, "commit", "-qm", "init");

    await using server = await startServer({ workspace, args: ["--mode", "trusted"] });
    const info = await server.call("server_info");
    assertEquals(info.isError, false);
    const s = info.structured;
    assertEquals(s.ok, true);
    assertEquals(s.server.name, "workcell");
    assertEquals(s.workspace, {
      root: workspace,
      writable: true,
      source: "flag",
      source_detail: "--workspace",
      refused: null,
      deno_write_grant: "none",
      roots: null,
    });
    assertEquals(s.project.git.relation, "workspace");
    assertEquals(s.project.git.branch, "trunk");
    assertEquals(s.project.git.head.length, 40);
    assertEquals(s.project.manifests, ["deno.json", "package.json"]);
    // CLAUDE.md is a symlink leaving the workspace: never read.
    assertEquals(s.project.instructions.map((file: { path: string }) => file.path), ["AGENTS.md"]);
    assert(!JSON.stringify(s).includes("TOP SECRET"));
    const agents = s.project.instructions[0];
    assertEquals(agents.truncated, true);
    assert(new TextEncoder().encode(agents.excerpt).length <= EXCERPT_BYTES);
    assert(!agents.excerpt.includes("\uFFFD"));
    assertEquals(s.policy.mode, "trusted");
    assertEquals(s.policy.execution, "shell");
    assertEquals(s.policy.grants, []);
    assertEquals(s.runtime.deno, Deno.version.deno);
    assertEquals(s.runtime.compiled, Deno.env.get("WORKCELL_BINARY") !== undefined); // build_test runs this against the binary
    assert(s.runtime.ripgrep.version.startsWith("ripgrep "));
    assertEquals(s.auth, { transport: "stdio", scheme: "none" });
    assertEquals(s.protocol.negotiated_version, "2025-11-25");
    assertEquals(s.protocol.client, { name: "workcell-e2e", version: "1.0.0" });
    assertEquals(s.catalog.count, 18);
    assertEquals(s.catalog.list_changed, false);
    assertEquals(s.catalog.names[0], "server_info");
    assert(info.text.includes("trunk"), info.text);

    // HEAD alone: the work tree is git_status's (a full status cost 211 ms on a 100,000-file repository).
    await Deno.writeTextFile(path.join(workspace, "new.txt"), "x");
    assertEquals((await server.call("server_info")).structured.project.git, s.project.git);
  } finally {
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("server_info in a workspace inside a parent repository reports the parent relation", async () => {
  const parent = await tempWorkspace();
  try {
    await git(parent, "init", "-q");
    const workspace = path.join(parent, "sub");
    await Deno.mkdir(workspace);
    await using server = await startServer({ workspace });
    const info = await server.call("server_info");
    assertEquals(info.structured.project.git.relation, "parent");
    assertEquals(info.structured.project.git.root, parent);
    assertEquals(info.structured.project.git.head, null);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("server_info outside any repository says so, and dangerous mode is loud", async () => {
  await using server = await startServer({ args: ["--mode", "dangerous"] });
  const info = await server.call("server_info");
  assertEquals(info.structured.project.git, null);
  assertEquals(info.structured.project.manifests, []);
  assert(info.structured.policy.summary.startsWith("DANGEROUS"));
  assert(info.text.includes("DANGEROUS"));
});

Deno.test("initialize: serverInfo carries the title, description, website and an inline PNG icon", async () => {
  await using server = await startServer();
  const info = server.client.getServerVersion()!;
  assertEquals(
    { name: info.name, title: info.title, description: info.description, websiteUrl: info.websiteUrl },
    { name: "workcell", title: SERVER_TITLE, description: SERVER_DESCRIPTION, websiteUrl: WEBSITE_URL },
  );
  const [icon] = info.icons!;
  assertEquals({ mimeType: icon.mimeType, sizes: icon.sizes }, {
    mimeType: "image/png",
    sizes: [SERVER_INFO_ICON_SIZE],
  });
  const png = Uint8Array.from(atob(icon.src.replace(/^data:image\/png;base64,/, "")), (c) => c.charCodeAt(0));
  assertEquals(png, await Deno.readFile(SERVER_INFO_ICON_FILE));
  assert(JSON.stringify(info).length < 1024, "the whole serverInfo stays under 1 KB");
});

Deno.test("server_info: four long instruction files still fit the 16 KiB text, each cut one naming its read_file", async () => {
  await using server = await startServer();
  const long = (name: string) =>
    Array.from({ length: 300 }, (_, i) => `${name} line ${i} ${"x".repeat(20)}`).join("\n");
  for (const name of ["AGENTS.md", "CLAUDE.md", "README.md", "README"]) {
    await Deno.writeTextFile(`${server.workspace}/${name}`, long(name));
  }
  const result = await server.call("server_info", {});
  assert(!result.isError, result.text);
  assert(new TextEncoder().encode(result.text).length <= 16 * 1024, `${result.text.length}`);
  assert(!result.text.includes("[… "), "the envelope had to cut the text");
  assert(result.text.includes('next: read_file {"path":"AGENTS.md"}'), result.text.slice(-400));
});
