/**
 * A past commit's tree, for benches that compare this server with an
 * earlier one: extracted with `git archive`, its npm dependencies installed
 * before its server is first started (installing on the first start wrote
 * Deno's progress where the MCP client waited for its first answer, and the
 * start failed).
 *
 * @example
 * ```ts
 * await exportCommit("6e0851b8362b8d10f097e316f363004bab50fcd8", "/tmp/before");
 * ```
 */
import * as path from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;

/** Extracts `ref` into `dir` (created if missing) unless its main.ts is there, then installs its dependencies. */
export async function exportCommit(ref: string, dir: string): Promise<void> {
  if (!await Deno.stat(path.join(dir, "main.ts")).then(() => true, () => false)) {
    await Deno.mkdir(dir, { recursive: true });
    const archive = new Deno.Command("git", { args: ["archive", ref], cwd: ROOT, stdout: "piped" }).spawn();
    const untar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
    await archive.stdout.pipeTo(untar.stdin);
    if (!(await archive.status).success || !(await untar.status).success) throw new Error(`git archive ${ref} failed`);
  }
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--config", path.join(dir, "deno.json"), "--entrypoint", path.join(dir, "main.ts")],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!install.success) {
    throw new Error(`installing ${ref}'s dependencies failed: ${new TextDecoder().decode(install.stderr)}`);
  }
}
