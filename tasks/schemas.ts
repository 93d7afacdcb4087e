/**
 * `deno task schemas`: regenerates schemas/tools.json (the tools/list as
 * JSON Schema, converted from the tools' zod schemas; the server answers
 * tools/list with it, src/catalog_listing.ts), schemas/error-codes.json (the
 * registry) and schemas/audit-event.json (one line of --audit-log) from the
 * code. src/catalog_listing_test.ts and tests/schemas_test.ts fail when the
 * code drifts from them; tests/docs_test.ts when they name a path of the
 * machine they were made on.
 */
import { loadCatalog } from "../src/catalog.ts";
import { toolListing } from "../src/tool_schemas.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { ERROR_CODES } from "../src/errors.ts";
import { auditEventJsonSchema } from "../src/audit/event.ts";
import { machineRoots, portablePaths } from "../src/docs/machine_paths.ts";

const dir = new URL("../schemas/", import.meta.url).pathname;
const roots = machineRoots(new URL("..", import.meta.url).pathname);
const write = (file: string, value: unknown) =>
  Deno.writeTextFile(`${dir}${file}`, portablePaths(JSON.stringify(value, null, 2), roots) + "\n");
await Deno.mkdir(dir, { recursive: true });
const tools = (await loadCatalog()).map((tool) =>
  toolListing(tool, { fakeReadonly: false, maxResultChars: DEFAULT_MAX_RESULT_CHARS })
);
await write("tools.json", { tools });
await write("error-codes.json", ERROR_CODES);
await write("audit-event.json", auditEventJsonSchema());
console.error(
  `wrote ${tools.length} tools, ${Object.keys(ERROR_CODES).length} error codes and the audit event to schemas/`,
);
