/**
 * npm from the tasks and tests: one runner, and pinned command-line tools
 * (the MCP Inspector, the MCPB CLI) installed on first use into
 * `.tools/<name>/` (gitignored), so a clean clone needs nothing but Node and npm.
 *
 * @example
 * const dir = await ensureNpmTool("mcpb", "@anthropic-ai/mcpb", "2.1.2");
 * await npm(["pack", "--json"], { cwd: "/tmp/staged" });
 */
import * as path from "node:path";

const TOOLS = new URL("../.tools/", import.meta.url).pathname;

/** Runs npm with `args` (quietly), throwing with its stderr when it fails; returns its stdout. */
export async function npm(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const out = await new Deno.Command("npm", {
    args: [...args, "--no-audit", "--no-fund", "--loglevel=error"],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (!out.success) throw new Error(`npm ${args.join(" ")} failed (exit ${out.code}): ${decode(out.stderr)}`);
  return decode(out.stdout);
}

/** Installs `pkg@version` into .tools/`name`/ unless that version is there; returns the directory. */
export async function ensureNpmTool(name: string, pkg: string, version: string): Promise<string> {
  const dir = path.join(TOOLS, name);
  const installed = await Deno.readTextFile(path.join(dir, "node_modules", pkg, "package.json"))
    .then((text) => JSON.parse(text).version, () => null);
  if (installed === version) return dir;
  await Deno.mkdir(dir, { recursive: true });
  // A package.json of its own keeps npm from adopting any node_modules up the tree.
  await Deno.writeTextFile(path.join(dir, "package.json"), '{"private":true}\n');
  await npm(["install", `${pkg}@${version}`], { cwd: dir });
  return dir;
}
