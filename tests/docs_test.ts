import * as path from "node:path";
import { assertEquals } from "../testing/assert.ts";
import { startServer } from "./harness.ts";
import { DOC_BLOCKS } from "../src/docs/blocks.ts";
import { replaceGenerated } from "../src/docs/render.ts";
import { checkoutEntries, machinePaths, machineRoots, portablePaths } from "../src/docs/machine_paths.ts";

const root = new URL("../", import.meta.url).pathname;

Deno.test("docs/ agree with the live tools/list, the error registry, the limits and the modes (run `deno task docs`)", async () => {
  await using server = await startServer();
  const { tools } = await server.client.listTools();
  const roots = machineRoots(root);
  for (const block of DOC_BLOCKS) {
    const markdown = await Deno.readTextFile(`${root}${block.file}`);
    assertEquals(
      replaceGenerated(markdown, block.name, portablePaths(block.render(tools), roots)),
      markdown,
      `${block.file} [${block.name}]`,
    );
  }
});

/**
 * What generators write: bench/RESULTS.md (bench/run.ts), schemas/ (tasks/schemas.ts), and docs/, whose
 * generated blocks come from tasks/docs.ts and whose benchmark tables are quoted from bench runs.
 */
async function generatedFiles(): Promise<string[]> {
  const files = ["bench/RESULTS.md"];
  for (const [dir, ext] of [["docs", ".md"], ["schemas", ".json"]]) {
    for await (const entry of Deno.readDir(path.join(root, dir))) {
      if (entry.isFile && entry.name.endsWith(ext)) files.push(`${dir}/${entry.name}`);
    }
  }
  return files.sort();
}

Deno.test("generated files name no absolute path of the checkout, the temp directory or the home directory", async () => {
  const check = { roots: machineRoots(root), checkoutEntries: await checkoutEntries(root) };
  const found: string[] = [];
  for (const file of await generatedFiles()) {
    for (const hit of machinePaths(await Deno.readTextFile(path.join(root, file)), check)) {
      found.push(`${file}: ${hit}`);
    }
  }
  assertEquals(found, [], "rewrite them with portablePaths (src/docs/machine_paths.ts) in the generator");
});
