/** The heavy part of a view: pure computation on bytes, so it runs alike in the server thread or render_worker.ts. */
import { ToolError } from "../errors.ts";
import { formatBytes } from "../text/format_bytes.ts";
import { decodeImage, type Size } from "./decode.ts";
import { encodeBitmap } from "./encode.ts";
import { fitWithin, reduceBitmap } from "./resize.ts";
import type { ImageHeader } from "./sniff.ts";

/** Most base64 characters of an image sent: the model APIs' 5 MB per-image limit applies to the base64 text. */
export const MAX_IMAGE_BASE64_CHARS = 5_000_000;
/** Largest image sent, in bytes before base64: what encodes to at most {@linkcode MAX_IMAGE_BASE64_CHARS}. */
export const MAX_OUTPUT_BYTES = (MAX_IMAGE_BASE64_CHARS / 4) * 3;
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
 * Fits checked `source` in `box`: its bytes if it fits (decoded to prove it whole), else reduced; `name` labels errors.
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 * declare const bytes: Uint8Array;
 * await renderImage(bytes, sniffImage(bytes), { width: 64, height: 64 }, "a.gif");
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
