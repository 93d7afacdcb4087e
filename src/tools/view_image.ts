import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

const dimensions = z.object({ width: z.int(), height: z.int() });

export const viewImageTool = defineTool({
  name: "view_image",
  title: "View image",
  description:
    "Show a PNG, JPEG or GIF (first frame) as one image content block, resized to fit max_width x max_height keeping the aspect ratio.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().describe("Image file, relative to the workspace root."),
    max_width: z.int().min(1).max(8192).default(2048).describe("Largest width sent."),
    max_height: z.int().min(1).max(8192).default(2048).describe("Largest height sent."),
  }),
  output: z.object({
    path: z.string(),
    media_type: z.string(),
    bytes: z.int(),
    output_bytes: z.int(),
    original: dimensions,
    output: dimensions,
    resized: z.boolean(),
    warnings: z.array(z.string()),
  }),
  handler: () => notImplemented("view_image"),
});
