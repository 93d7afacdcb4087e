/**
 * `deno task schemas`: regenerates schemas/tools.json (the live tools/list
 * as JSON Schema) and schemas/error-codes.json (the registry) from the
 * catalog. tests/schemas_test.ts fails when the live server drifts from them.
 */
import { CATALOG } from "../src/catalog.ts";
import { toolListing } from "../src/server.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { ERROR_CODES } from "../src/errors.ts";

const dir = new URL("../schemas/", import.meta.url).pathname;
await Deno.mkdir(dir, { recursive: true });
const tools = CATALOG.map((tool) =>
  toolListing(tool, { fakeReadonly: false, maxResultChars: DEFAULT_MAX_RESULT_CHARS })
);
await Deno.writeTextFile(`${dir}tools.json`, JSON.stringify({ tools }, null, 2) + "\n");
await Deno.writeTextFile(`${dir}error-codes.json`, JSON.stringify(ERROR_CODES, null, 2) + "\n");
console.error(`wrote ${tools.length} tools and ${Object.keys(ERROR_CODES).length} error codes to ${dir}`);
