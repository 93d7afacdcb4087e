/**
 * `deno task schemas`: regenerates schemas/tools.json (the live tools/list
 * as JSON Schema), schemas/error-codes.json (the registry) and
 * schemas/audit-event.json (one line of --audit-log) from the code.
 * tests/schemas_test.ts fails when the live server drifts from them;
 * tests/docs_test.ts when they name a path of the machine they were made on.
 */
import { CATALOG } from "../src/catalog.ts";
import { toolListing } from "../src/server.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { ERROR_CODES } from "../src/errors.ts";
import { auditEventJsonSchema } from "../src/audit/event.ts";
import { machineRoots, portablePaths } from "../src/docs/machine_paths.ts";

const dir = new URL("../schemas/", import.meta.url).pathname;
const roots = machineRoots(new URL("..", import.meta.url).pathname);
const write = (file: string, value: unknown) =>
  Deno.writeTextFile(`${dir}${file}`, portablePaths(JSON.stringify(value, null, 2), roots) + "\n");
await Deno.mkdir(dir, { recursive: true });
const tools = CATALOG.map((tool) =>
  toolListing(tool, { fakeReadonly: false, maxResultChars: DEFAULT_MAX_RESULT_CHARS })
);
await write("tools.json", { tools });
await write("error-codes.json", ERROR_CODES);
await write("audit-event.json", auditEventJsonSchema());
console.error(
  `wrote ${tools.length} tools, ${Object.keys(ERROR_CODES).length} error codes and the audit event to schemas/`,
);
