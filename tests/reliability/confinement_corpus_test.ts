/**
 * The confinement corpus: every path-taking tool against every escape,
 * through the SDK client. Asserts each call is refused, that no answer
 * carries outside content, and that nothing outside the workspace was
 * written (content hashes, mtimes and the directory listing of the
 * outside tree are compared before and after).
 */
import * as path from "node:path";
import { assertEquals } from "../../testing/assert.ts";
import { startServer } from "../harness.ts";
import { type Fixture, fixture, outsideChanges, SECRET, snapshot } from "./outside.ts";

const REFUSAL_CODES = new Set(["PATH_OUTSIDE_WORKSPACE", "INVALID_ARGUMENT", "NOT_FOUND", "NOT_A_GIT_REPO"]);

/** Every escape spelling, relative to the workspace. */
function escapes(f: Fixture): string[] {
  return [
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    path.join(f.outside, "secret.txt"),
    `/proc/self/root${f.outside}/secret.txt`,
    "/proc/self/cwd/secret.txt",
    "file-out",
    "chain-2",
    "dir-out/secret.txt",
    "rel-dir-out/secret.txt",
    "proc-root/secret.txt",
    "dangling-out",
  ];
}

/** One call per tool per escape: [tool, arguments]. */
function calls(f: Fixture): [string, Record<string, unknown>][] {
  const result: [string, Record<string, unknown>][] = [];
  for (const p of escapes(f)) {
    const dir = p.endsWith("secret.txt") ? p.slice(0, -"/secret.txt".length) || p : p;
    // A new file beside the outside secret, or (for a bare link name) the link itself, which must not be written through.
    const fresh = p.endsWith("secret.txt") ? `${p}.new` : p;
    result.push(
      ["read_file", { path: p }],
      ["list_dir", { path: dir }],
      ["list_files", { path: dir }],
      ["search_text", { pattern: "OUTSIDE-SECRET", path: p }],
      ["search_text", { pattern: "OUTSIDE-SECRET", path: dir }],
      ["view_image", { path: p }],
      ["git_status", { path: p }],
      ["git_log", { path: p }],
      ["git_blame", { path: p }],
      ["git_diff", { paths: [p] }],
      ["git_show", { rev: "HEAD", path: p }],
      ["exec_command", { cmd: "pwd", workdir: dir }],
      ["apply_patch", { patch: `*** Begin Patch\n*** Add File: ${fresh}\n+pwned\n*** End Patch\n` }],
      ["apply_patch", { patch: `*** Begin Patch\n*** Update File: ${p}\n@@\n-${SECRET}\n+pwned\n*** End Patch\n` }],
      ["apply_patch", { patch: `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch\n` }],
      [
        "apply_patch",
        {
          patch:
            `*** Begin Patch\n*** Update File: src/inside.txt\n*** Move to: ${fresh}\n@@\n-inside\n+moved\n*** End Patch\n`,
        },
      ],
    );
  }
  result.push(
    ["view_image", { path: "image-out.png" }],
    ["git_status", {}],
    ["list_dir", { path: "repo-out" }],
    ["read_file", { path: "repo-out/tracked.txt" }],
  );
  return result;
}

Deno.test("confinement corpus: every path-taking tool refuses every escape and touches nothing outside", async () => {
  const f = await fixture();
  try {
    const before = await snapshot(f.outside);
    await using server = await startServer({ workspace: f.workspace, args: ["--mode", "dangerous"] });
    const failures: string[] = [];
    for (const [tool, args] of calls(f)) {
      const result = await server.call(tool, args);
      const label = `${tool} ${JSON.stringify(args)}`;
      const answer = JSON.stringify(result.structured) + result.text;
      if (answer.includes(SECRET)) failures.push(`${label}: leaked outside content`);
      if (tool === "git_status" && Object.keys(args).length === 0) {
        // The workspace itself is not a repository; the repository symlinked in must not be reported.
        if (!result.isError) failures.push(`${label}: reported a repository`);
        continue;
      }
      if (!result.isError) failures.push(`${label}: succeeded`);
      else if (!REFUSAL_CODES.has(result.structured.error.code)) {
        failures.push(`${label}: unexpected ${result.structured.error.code}: ${result.structured.error.message}`);
      }
    }
    assertEquals(failures, []);
    assertEquals(outsideChanges(before, await snapshot(f.outside)), [], "the outside tree changed");
  } finally {
    await Deno.remove(f.base, { recursive: true });
  }
});

Deno.test("a hard link to an outside file is patched by replacement: the outside inode keeps its bytes", async () => {
  const f = await fixture();
  try {
    const outsideFile = path.join(f.outside, "linked.txt");
    await Deno.writeTextFile(outsideFile, "original\n");
    await Deno.link(outsideFile, path.join(f.workspace, "hard.txt"));
    await using server = await startServer({ workspace: f.workspace });
    const result = await server.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: hard.txt\n@@\n-original\n+patched\n*** End Patch\n",
    });
    assertEquals(result.isError, false, result.text);
    assertEquals(await Deno.readTextFile(path.join(f.workspace, "hard.txt")), "patched\n");
    assertEquals(await Deno.readTextFile(outsideFile), "original\n");
  } finally {
    await Deno.remove(f.base, { recursive: true });
  }
});
