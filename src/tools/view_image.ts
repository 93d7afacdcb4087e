import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { DEFAULT_MAX_DIMENSION, describeView, viewImage } from "../image/view.ts";

/** Largest max_width / max_height a caller may ask for. */
const MAX_BOX = 8192;

const dimensions = z.object({ width: z.int(), height: z.int() });

export const viewImageTool = defineTool({
  name: "view_image",
  title: "View image",
  description:
    "Show a PNG, JPEG or GIF (first frame) as one image content block, resized to fit max_width x max_height keeping the aspect ratio. The type is detected from the bytes; smaller images are sent byte for byte.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().describe("Image file, relative to the workspace root."),
    max_width: z.int().min(1).max(MAX_BOX).default(DEFAULT_MAX_DIMENSION).describe("Largest width sent."),
    max_height: z.int().min(1).max(MAX_BOX).default(DEFAULT_MAX_DIMENSION).describe("Largest height sent."),
  }),
  output: z.object({
    path: z.string(),
    media_type: z.string().describe("Media type of the image block sent."),
    source_media_type: z.string().describe("Media type detected from the file's bytes."),
    bytes: z.int().describe("Size of the file."),
    output_bytes: z.int().describe("Size of the image sent (before base64)."),
    original: dimensions,
    output: dimensions,
    resized: z.boolean().describe("False: the file's own bytes were sent; true: reduced and re-encoded."),
    scale: z.number().describe("Output over original size, the smaller of the two axes' ratios (1 when not resized)."),
    max_width: z.int(),
    max_height: z.int(),
    warnings: z.array(z.string()),
  }),
  handler: async (args, ctx) => {
    const box = { width: args.max_width, height: args.max_height };
    const view = await ctx.services.imageQueue.run(() => {
      ctx.signal.throwIfAborted(); // cancelled while waiting for its turn
      return viewImage(ctx.workspace, args.path, box, ctx.services.imageRenderer, ctx.signal);
    });
    return {
      text: describeView(view),
      image: { data: view.bytes.toBase64(), mimeType: view.mediaType },
      data: {
        path: view.path,
        media_type: view.mediaType,
        source_media_type: view.sourceMediaType,
        bytes: view.fileBytes,
        output_bytes: view.bytes.length,
        original: view.original,
        output: view.output,
        resized: view.resized,
        scale: view.scale,
        max_width: args.max_width,
        max_height: args.max_height,
        warnings: view.warnings,
      },
    };
  },
});
