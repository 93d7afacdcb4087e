import { assertEquals } from "./assert.ts";
import { startServer } from "./harness.ts";
import { DOC_BLOCKS } from "../src/docs/blocks.ts";
import { replaceGenerated } from "../src/docs/render.ts";

const root = new URL("../", import.meta.url).pathname;

Deno.test("docs/ agree with the live tools/list, the error registry, the limits and the modes (run `deno task docs`)", async () => {
  await using server = await startServer();
  const { tools } = await server.client.listTools();
  for (const block of DOC_BLOCKS) {
    const markdown = await Deno.readTextFile(`${root}${block.file}`);
    assertEquals(
      replaceGenerated(markdown, block.name, block.render(tools)),
      markdown,
      `${block.file} [${block.name}]`,
    );
  }
});
