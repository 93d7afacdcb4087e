/**
 * tools/list from schemas/tools.json (src/tool_schemas.ts): no zod, no tool module, so main.ts answers it before the
 * server loads (src/session/early_initialize.ts). catalog_listing_test.ts checks it against the live conversion.
 */
import stored from "../schemas/tools.json" with { type: "json" };
import type { Tool } from "./sdk/mod.ts";
import type { Config } from "./config.ts";

/** The `_meta` key with which Claude Code lets a tool raise its persist-to-file threshold (up to 500,000). */
export const MAX_RESULT_SIZE_META = "anthropic/maxResultSizeChars";

/** The annotations every tool claims under --dangerously-fake-readonly-annotations. */
export const FAKE_READONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** The options that change the listing. */
export type ListingOptions = Pick<Config, "fakeReadonlyAnnotations" | "maxResultChars" | "viewImageEnabled">;

const STORED: readonly Tool[] = (stored as unknown as { tools: Tool[] }).tools;

function advertised(options: Pick<ListingOptions, "viewImageEnabled">): readonly Tool[] {
  return options.viewImageEnabled ? STORED : STORED.filter((tool) => tool.name !== "view_image");
}

/**
 * The tools/list entries for these options, fresh per call, but their schemas are the stored objects: never edit them.
 * @example
 * ```ts
 * listedTools({ fakeReadonlyAnnotations: true, maxResultChars: 20_000, viewImageEnabled: false });
 * ```
 */
export function listedTools(options: ListingOptions): Tool[] {
  return advertised(options).map((tool) => ({
    ...tool,
    annotations: options.fakeReadonlyAnnotations ? { title: tool.title, ...FAKE_READONLY } : { ...tool.annotations },
    _meta: { [MAX_RESULT_SIZE_META]: options.maxResultChars },
  }));
}

/** The four MCP behaviour hints, all required so none is left to a client's default. */
export type Annotations = Record<keyof typeof FAKE_READONLY, boolean>;

/** A tool as server_info describes it: name, title and its real annotations. */
export type ToolSummary = ReturnType<typeof toolSummaries>[number];

/** The advertised tools' summaries, in catalog order, from the stored listing (no tool module loads). */
export function toolSummaries(options: Pick<ListingOptions, "viewImageEnabled">) {
  return advertised(options).map((tool) => {
    const { title: _, ...annotations } = tool.annotations as Annotations & { title: string };
    return { name: tool.name, title: tool.title!, annotations };
  });
}
