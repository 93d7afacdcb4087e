/**
 * The heavy part of a view: decode, then either keep the file's bytes (the
 * image already fits) or reduce and re-encode, and reduce further while
 * the result is over the output cap. Pure computation on bytes in memory,
 * so it runs the same in the server's thread or in render_worker.ts.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 *
 * const bytes = await Deno.readFile("a.png");
 * const rendering = await renderImage(bytes, sniffImage(bytes), { width: 2048, height: 2048 }, "a.png");
 * ```
 */
import { ToolError } from "../errors.ts";
import { formatBytes } from "../text/format_bytes.ts";
import { decodeImage, type Size } from "./decode.ts";
import { encodeBitmap } from "./encode.ts";
import { fitWithin, reduceBitmap } from "./resize.ts";
import type { ImageHeader } from "./sniff.ts";

/**
 * Most base64 characters of an image sent: the model APIs' 5 MB per-image
 * limit applies to the base64 text, so an image passed through whole could
 * be refused at 3.75 MB. Also well inside the MCP SDK client's 10 MiB cap on
 * one message.
 */
export const MAX_IMAGE_BASE64_CHARS = 5_000_000;
/** Largest image sent, in bytes before base64: what encodes to at most {@linkcode MAX_IMAGE_BASE64_CHARS}. */
export const MAX_OUTPUT_BYTES = (MAX_IMAGE_BASE64_CHARS / 4) * 3;
/** How many further reductions are tried before giving up on MAX_OUTPUT_BYTES. */
const MAX_SHRINK_ATTEMPTS = 4;

/** What {@linkcode renderImage} produced. */
export interface Rendering {
  /** The bytes to send: the source itself when `resized` is false. */
  bytes: Uint8Array;
  mediaType: string;
  output: Size;
  resized: boolean;
  warnings: string[];
}

/**
 * Decodes `source` (whose header was already checked) and fits it in `box`:
 * the source bytes when it fits already (decoded anyway, to prove it whole),
 * otherwise reduced keeping the aspect ratio and re-encoded (PNG as PNG,
 * JPEG as JPEG, a GIF's first frame as PNG). `name` only labels errors.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 *
 * const gifBytes = await Deno.readFile("a.gif");
 * const header = sniffImage(gifBytes);
 * (await renderImage(gifBytes, header, { width: 64, height: 64 }, "a.gif")).mediaType; // "image/png" when reduced
 * ```
 */
export async function renderImage(
  source: Uint8Array,
  header: ImageHeader,
  box: Size,
  name: string,
): Promise<Rendering> {
  const original = { width: header.width, height: header.height };
  const warnings: string[] = [];
  let output = fitWithin(original, box);
  let resized = output.width !== original.width || output.height !== original.height;
  const bitmap = await decodeImage(source, header.format, { full: original, atLeast: resized ? output : undefined });
  let sent = { bytes: source, mediaType: header.mediaType as string };
  if (resized) sent = await encodeBitmap(reduceBitmap(bitmap, output), header.format);
  const fitted = output;
  for (let attempt = 1; sent.bytes.length > MAX_OUTPUT_BYTES; attempt++) {
    if (attempt > MAX_SHRINK_ATTEMPTS) {
      throw new ToolError(
        "FILE_TOO_LARGE",
        `${name} stays over ${formatBytes(MAX_OUTPUT_BYTES)} (${MAX_IMAGE_BASE64_CHARS} characters encoded) even ` +
          `reduced to ${output.width}x${output.height}`,
        { hint: "Pass a smaller max_width/max_height.", details: { path: name, max_output_bytes: MAX_OUTPUT_BYTES } },
      );
    }
    // Encoded size grows roughly with the pixel count: aim 10% under the cap.
    const factor = Math.sqrt(MAX_OUTPUT_BYTES / sent.bytes.length) * 0.9;
    output = {
      width: Math.max(1, Math.floor(output.width * factor)),
      height: Math.max(1, Math.floor(output.height * factor)),
    };
    sent = await encodeBitmap(reduceBitmap(bitmap, output), header.format);
    resized = true;
  }
  if (output !== fitted) {
    warnings.push(
      `at ${fitted.width}x${fitted.height} the image was over the ${formatBytes(MAX_OUTPUT_BYTES)} cap ` +
        `for an image sent (${MAX_IMAGE_BASE64_CHARS} characters encoded), so it was reduced to ` +
        `${output.width}x${output.height}`,
    );
  }
  if (resized && header.format === "gif") warnings.push("the GIF's first frame was re-encoded as PNG to resize it");
  return { ...sent, output, resized, warnings };
}
