/** imagescript's native encoders, a Node-API addon loaded on first use: without --allow-ffi only resizing fails. */
import { ToolError } from "../errors.ts";
import type { RgbaBitmap } from "./decode.ts";
import type { ImageFormat } from "./sniff.ts";

/** JPEG quality of a re-encoded JPEG: visually clean, about a tenth of the RGBA size. */
export const JPEG_QUALITY = 85;

interface NativeEncoder {
  encode_async(rgba: Uint8Array, options: { width: number; height: number; quality?: number }): Promise<Uint8Array>;
}

type NativeCodecs = Record<"png" | "jpeg", NativeEncoder>;

let codecs: Promise<NativeCodecs> | undefined;

function loadCodecs(): Promise<NativeCodecs> {
  codecs ??= import("imagescript/codecs/node/index.js").then(
    (module) => (module.default ?? module) as unknown as NativeCodecs,
    (error) => {
      codecs = undefined; // let a later call (after a fix) try again
      throw new ToolError("INTERNAL", `imagescript's native encoder cannot be loaded: ${(error as Error).message}`, {
        hint: "Run the server with its standard permission list (it includes --allow-ffi) on a supported platform; " +
          "images that need no resizing still work.",
      });
    },
  );
  return codecs;
}

/**
 * Encodes `bitmap` in the output format for `source`: JPEG stays JPEG; PNG and GIF (first frame) become PNG.
 * @example
 * ```ts
 * await encodeBitmap({ width: 1, height: 1, channels: 4, pixels: new Uint8Array(4) }, "gif"); // as "image/png"
 * ```
 */
export async function encodeBitmap(
  bitmap: RgbaBitmap,
  source: ImageFormat,
): Promise<{ bytes: Uint8Array; mediaType: "image/png" | "image/jpeg" }> {
  const native = await loadCodecs();
  const options = { width: bitmap.width, height: bitmap.height };
  if (source === "jpeg") {
    const bytes = await native.jpeg.encode_async(bitmap.pixels, { ...options, quality: JPEG_QUALITY });
    return { bytes, mediaType: "image/jpeg" };
  }
  return { bytes: await native.png.encode_async(bitmap.pixels, options), mediaType: "image/png" };
}
