/**
 * `deno task docs`: rewrites the generated blocks of docs/ from the catalog,
 * the error registry, the limits and the mode table. tests/docs_test.ts
 * fails when the committed docs disagree with the live server, or name a
 * path of the machine they were generated on.
 */
import { loadCatalog } from "../src/catalog.ts";
import { toolListing } from "../src/tool_schemas.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { DOC_BLOCKS } from "../src/docs/blocks.ts";
import { replaceGenerated } from "../src/docs/render.ts";
import { machineRoots, portablePaths } from "../src/docs/machine_paths.ts";

const root = new URL("../", import.meta.url).pathname;
const roots = machineRoots(root);
const tools = (await loadCatalog()).map((tool) =>
  toolListing(tool, { fakeReadonly: false, maxResultChars: DEFAULT_MAX_RESULT_CHARS })
);
for (const block of DOC_BLOCKS) {
  const file = `${root}${block.file}`;
  const markdown = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, replaceGenerated(markdown, block.name, portablePaths(block.render(tools), roots)));
}
console.error(`updated ${DOC_BLOCKS.length} generated blocks`);
