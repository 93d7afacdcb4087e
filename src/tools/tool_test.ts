import { z } from "zod";
import { assertEquals } from "../../testing/assert.ts";
import { defineTool } from "./tool.ts";

const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

Deno.test("defineTool: a handler's data is typed by the output schema (deno check refuses a mismatch)", async () => {
  const tool = defineTool({
    name: "count",
    title: "Count",
    description: "Counts.",
    annotations,
    input: z.strictObject({ of: z.string() }),
    output: z.object({ count: z.int(), unit: z.enum(["chars"]) }),
    // A literal for an enum field needs `as const`: TypeScript widens literals checked against a generic type.
    handler: (args) =>
      Promise.resolve({ text: `${args.of.length} chars`, data: { count: args.of.length, unit: "chars" as const } }),
  });
  const ctx = {} as Parameters<typeof tool.handler>[1];
  assertEquals((await tool.handler({ of: "abc" }, ctx)).data, { count: 3, unit: "chars" });

  defineTool({
    name: "wrong",
    title: "Wrong",
    description: "Returns what its schema does not allow.",
    annotations,
    input: z.strictObject({}),
    output: z.object({ count: z.int() }),
    // @ts-expect-error: a string where the output schema says a number
    handler: () => Promise.resolve({ text: "", data: { count: "3" } }),
  });
  defineTool({
    name: "missing",
    title: "Missing",
    description: "Leaves out a field its schema requires.",
    annotations,
    input: z.strictObject({}),
    output: z.object({ count: z.int(), unit: z.string() }),
    // @ts-expect-error: unit is required by the output schema
    handler: () => Promise.resolve({ text: "", data: { count: 3 } }),
  });
});
