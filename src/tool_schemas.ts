/** The live conversion of the zod schemas into tools/list entries (draft 7), stored by `deno task schemas`. */
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

/** zod renders `z.unknown()` as `{}`, which strict schema linters flag as accidental: spell it `true`. */
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
 * One tool's tools/list entry; `_meta` declares our ceiling, so clients that persist large results keep ours inline.
 * @example
 * ```ts
 * import { loadTool } from "./catalog.ts";
 * toolListing(await loadTool("server_info"), { fakeReadonly: false, maxResultChars: 48_000 });
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
