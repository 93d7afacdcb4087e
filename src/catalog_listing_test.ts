import { assertEquals } from "../testing/assert.ts";
import { loadTool, TOOL_NAMES } from "./catalog.ts";
import { listedTools, type ListingOptions, toolSummaries } from "./catalog_listing.ts";
import { toolListing } from "./tool_schemas.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "./paging/budget.ts";

/** The live definitions a server with these flags advertises: --disable-view-image drops view_image. */
function advertisedTools(options: { viewImageEnabled: boolean }) {
  return Promise.all(TOOL_NAMES.filter((name) => options.viewImageEnabled || name !== "view_image").map(loadTool));
}

Deno.test("the stored listing (schemas/tools.json) equals the live conversion of every tool, for every option: run `deno task schemas` after a schema change", async () => {
  for (const fakeReadonlyAnnotations of [false, true]) {
    for (const viewImageEnabled of [true, false]) {
      for (const maxResultChars of [DEFAULT_MAX_RESULT_CHARS, 20_000]) {
        const options: ListingOptions = { fakeReadonlyAnnotations, viewImageEnabled, maxResultChars };
        const tools = await advertisedTools(options);
        const live = tools.map((tool) => toolListing(tool, { fakeReadonly: fakeReadonlyAnnotations, maxResultChars }));
        const stored = listedTools(options);
        assertEquals(stored.map((tool) => tool.name), live.map((tool) => tool.name), JSON.stringify(options));
        for (const [i, tool] of live.entries()) {
          // Byte for byte, key order included: the early answer and the server's must be the same line.
          assertEquals(JSON.stringify(stored[i]), JSON.stringify(tool), `${tool.name} ${JSON.stringify(options)}`);
        }
      }
    }
  }
});

Deno.test("server_info's summaries are each tool's own name, title and annotations, key order included", async () => {
  for (const viewImageEnabled of [true, false]) {
    const tools = await advertisedTools({ viewImageEnabled });
    const own = tools.map(({ name, title, annotations }) => ({ name, title, annotations }));
    assertEquals(JSON.stringify(toolSummaries({ viewImageEnabled })), JSON.stringify(own));
  }
});

Deno.test("the stored listing hands out fresh annotations and _meta: an edit of one answer never reaches the next", () => {
  const options: ListingOptions = { fakeReadonlyAnnotations: false, viewImageEnabled: true, maxResultChars: 1000 };
  const first = listedTools(options);
  first[0].annotations!.readOnlyHint = false;
  first[0]._meta!.x = 1;
  assertEquals(listedTools(options)[0].annotations?.readOnlyHint, true);
  assertEquals(listedTools(options)[0]._meta, { "anthropic/maxResultSizeChars": 1000 });
});
