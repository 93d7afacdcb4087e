import { assertEquals } from "./testing/assert.ts";
import { advertisedTools } from "./catalog.ts";
import { listedTools, type ListingOptions } from "./catalog_listing.ts";
import { toolListing } from "./tool_schemas.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "./paging/budget.ts";

Deno.test("the stored listing (schemas/tools.json) equals the live conversion of every tool, for every option: run `deno task schemas` after a schema change", () => {
  for (const fakeReadonlyAnnotations of [false, true]) {
    for (const viewImageEnabled of [true, false]) {
      for (const maxResultChars of [DEFAULT_MAX_RESULT_CHARS, 20_000]) {
        const options: ListingOptions = { fakeReadonlyAnnotations, viewImageEnabled, maxResultChars };
        const live = advertisedTools(options).map((tool) =>
          toolListing(tool, { fakeReadonly: fakeReadonlyAnnotations, maxResultChars })
        );
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

Deno.test("the stored listing hands out fresh annotations and _meta: an edit of one answer never reaches the next", () => {
  const options: ListingOptions = { fakeReadonlyAnnotations: false, viewImageEnabled: true, maxResultChars: 1000 };
  const first = listedTools(options);
  first[0].annotations!.readOnlyHint = false;
  first[0]._meta!.x = 1;
  assertEquals(listedTools(options)[0].annotations?.readOnlyHint, true);
  assertEquals(listedTools(options)[0]._meta, { "anthropic/maxResultSizeChars": 1000 });
});
