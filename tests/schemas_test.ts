import { assertEquals } from "../testing/assert.ts";
import { startServer } from "./harness.ts";
import { ERROR_CODES } from "../src/errors.ts";
import { auditEventJsonSchema } from "../src/audit/event.ts";

const schemasDir = new URL("../schemas/", import.meta.url).pathname;

// The server answers from the file (src/catalog_listing.ts; catalog_listing_test.ts converts the zod schemas live).
Deno.test("tools/list over the SDK client equals the committed schemas/tools.json (run `deno task schemas` after a schema change)", async () => {
  const snapshot = JSON.parse(await Deno.readTextFile(`${schemasDir}tools.json`));
  await using server = await startServer();
  const { tools } = await server.client.listTools();
  assertEquals(tools.map((tool) => tool.name), snapshot.tools.map((tool: { name: string }) => tool.name));
  for (const [i, tool] of tools.entries()) {
    assertEquals(tool, snapshot.tools[i], `${tool.name} drifted from schemas/tools.json`);
  }
});

Deno.test("the error registry equals the committed schemas/error-codes.json", async () => {
  const snapshot = JSON.parse(await Deno.readTextFile(`${schemasDir}error-codes.json`));
  assertEquals(JSON.parse(JSON.stringify(ERROR_CODES)), snapshot);
});

Deno.test("the audit event schema equals the committed schemas/audit-event.json", async () => {
  const snapshot = JSON.parse(await Deno.readTextFile(`${schemasDir}audit-event.json`));
  assertEquals(JSON.parse(JSON.stringify(auditEventJsonSchema())), snapshot);
});
