/**
 * The live conversion of the catalog's zod schemas into tools/list entries
 * (JSON Schema, draft 7). `deno task schemas` writes its output to
 * schemas/tools.json, which the server serves (src/catalog_listing.ts: no
 * conversion and no tool module at run time); catalog_listing_test.ts fails
 * when the two differ.
 *
 * @example
 * ```ts
 * import { loadTool } from "./catalog.ts";
 *
 * const entry = toolListing(await loadTool("server_info"), { fakeReadonly: false, maxResultChars: 48_000 });
 * entry.inputSchema; // { type: "object", properties: {}, additionalProperties: false }
 * ```
 */
import { z } from "./zod.ts";
import type { Tool } from "./sdk/mod.ts";
import { ERROR_CODE_NAMES } from "./errors.ts";
import type { ToolDefinition } from "./tools/tool.ts";
import { FAKE_READONLY, MAX_RESULT_SIZE_META } from "./catalog_listing.ts";

/** The structured error every tool may return instead of its success shape. */
export const errorResultSchema = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.enum(ERROR_CODE_NAMES as [string, ...string[]]),
    message: z.string(),
    hint: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

/**
 * zod renders `z.unknown()` values as `{}`; strict schema linters read that as
 * "constrains nothing by accident". Spell free-form values as a deliberate `true`.
 */
function explicitFreeForm(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(explicitFreeForm);
  if (schema === null || typeof schema !== "object") return schema;
  const entries = Object.entries(schema).map(([key, value]) => {
    const empty = value !== null && typeof value === "object" && !Array.isArray(value) &&
      Object.keys(value).length === 0;
    return [key, key === "additionalProperties" && empty ? true : explicitFreeForm(value)];
  });
  return Object.fromEntries(entries);
}

/**
 * The tools/list entry of one tool, converted from its zod schemas, declaring the result ceiling so that clients
 * that persist large results to a file keep every result of ours inline.
 *
 * @example
 * ```ts
 * import { loadCatalog } from "./catalog.ts";
 *
 * const tools = (await loadCatalog()).map((tool) => toolListing(tool, { fakeReadonly: false, maxResultChars: 48_000 }));
 * ```
 */
export function toolListing(tool: ToolDefinition, options: { fakeReadonly: boolean; maxResultChars: number }): Tool {
  const success = tool.output.extend({ ok: z.literal(true) });
  const { $schema: _in, ...inputSchema } = z.toJSONSchema(tool.input, { io: "input", target: "draft-7" });
  const { $schema: _out, ...outputSchema } = z.toJSONSchema(z.union([success, errorResultSchema]), {
    io: "output",
    target: "draft-7",
  });
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: explicitFreeForm(inputSchema) as Tool["inputSchema"],
    outputSchema: explicitFreeForm({ type: "object", ...outputSchema }) as Tool["outputSchema"],
    annotations: { title: tool.title, ...(options.fakeReadonly ? FAKE_READONLY : tool.annotations) },
    _meta: { [MAX_RESULT_SIZE_META]: options.maxResultChars },
  };
}
