/**
 * Encoding a reduced bitmap with imagescript's native codecs (the same ones
 * `Image.encodeJPEG` uses; its PNG encoder is about twice as fast as the
 * JavaScript one behind `Image.encode` and compresses far better).
 *
 * @example
 * const { bytes, mediaType } = await encodeBitmap(bitmap, "jpeg");
 */
import codecsModule from "imagescript/codecs/node/index.js";
import type { Bitmap } from "./decode.ts";
import type { ImageFormat } from "./sniff.ts";

/** JPEG quality of a re-encoded JPEG: visually clean, about a tenth of the RGBA size. */
export const JPEG_QUALITY = 85;

interface EncodeOptions {
  width: number;
  height: number;
  quality?: number;
}

interface NativeCodecs {
  png: { encode_async(rgba: Uint8Array, options: EncodeOptions): Promise<Uint8Array> };
  jpeg: { encode_async(rgba: Uint8Array, options: EncodeOptions): Promise<Uint8Array> };
}

const codecs = codecsModule as unknown as NativeCodecs;

/** What a source format is re-encoded as: JPEG stays JPEG; PNG and GIF (first frame) become PNG. */
export function outputFormat(source: ImageFormat): "png" | "jpeg" {
  return source === "jpeg" ? "jpeg" : "png";
}

/**
 * Encodes `bitmap` in the output format for `source` (see {@linkcode outputFormat}).
 *
 * @example
 * (await encodeBitmap(bitmap, "gif")).mediaType; // "image/png"
 */
export async function encodeBitmap(
  bitmap: Bitmap,
  source: ImageFormat,
): Promise<{ bytes: Uint8Array; mediaType: "image/png" | "image/jpeg" }> {
  const options = { width: bitmap.width, height: bitmap.height };
  if (outputFormat(source) === "jpeg") {
    const bytes = await codecs.jpeg.encode_async(bitmap.rgba, { ...options, quality: JPEG_QUALITY });
    return { bytes, mediaType: "image/jpeg" };
  }
  return { bytes: await codecs.png.encode_async(bitmap.rgba, options), mediaType: "image/png" };
}
