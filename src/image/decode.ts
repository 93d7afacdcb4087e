/** Decoding via codecs.ts, not `Image.decode`, whose JPEG path copies pixel by pixel (~7 s for a 6000x4000 photo). */
import { ToolError } from "../errors.ts";
import { codecModules, decodeJpeg, decodePng, gifFirstFrame, type JpegPixels } from "./codecs.ts";
import type { ImageFormat } from "./sniff.ts";

/** 8-bit samples row by row: 4 channels RGBA (not premultiplied), 3 RGB, 1 grey (JPEG's, not widened: saves memory). */
export interface Bitmap {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  pixels: Uint8Array;
}

/** A bitmap of RGBA pixels: what the resize makes and the encoders take. */
export type RgbaBitmap = Bitmap & { channels: 4 };

/** A width and height. */
export interface Size {
  width: number;
  height: number;
}

/** The JPEG decoder's scale factors, in eighths, smallest first. */
const JPEG_SCALES = [1, 2, 4, 8];

/**
 * The smallest DCT scale's size covering `atLeast` on both axes (the decoder picks the smallest reaching either axis).
 * @example
 * ```ts
 * jpegDecodeSize({ width: 6000, height: 4000 }, { width: 2048, height: 1365 }); // { width: 3000, height: 2000 }
 * ```
 */
export function jpegDecodeSize(full: Size, atLeast: Size): Size {
  const scaled = (length: number, eighths: number) => Math.ceil((length * eighths) / 8);
  for (const eighths of JPEG_SCALES) {
    const size = { width: scaled(full.width, eighths), height: scaled(full.height, eighths) };
    if (size.width >= atLeast.width && size.height >= atLeast.height) return size;
  }
  return full;
}

/**
 * The JPEG decoder's pixels as a bitmap, Adobe CMYK converted to RGB; throws when CMYK pixels do not fill the image.
 * @example
 * ```ts
 * jpegBitmap({ width: 1, height: 1, format: 2, buffer: new Uint8Array([255, 0, 255, 255]) }).pixels; // [255, 0, 255]
 * ```
 */
export function jpegBitmap(decoded: JpegPixels): Bitmap {
  const { width, height, buffer } = decoded;
  if (decoded.format === 0) return { width, height, channels: 1, pixels: buffer };
  if (decoded.format === 1) return { width, height, channels: 3, pixels: buffer };
  if (decoded.format !== 2) throw new Error(`unknown JPEG pixel format ${decoded.format}`);
  if (buffer.length !== width * height * 4) throw new Error("the CMYK pixels do not fill the image");
  // Adobe CMYK is stored inverted: each stored value is 255 - ink, so R = C' * K' / 255.
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, o = 0; o < rgb.length; i += 4, o += 3) {
    const k = buffer[i + 3];
    rgb[o] = (buffer[i] * k) / 255;
    rgb[o + 1] = (buffer[i + 1] * k) / 255;
    rgb[o + 2] = (buffer[i + 2] * k) / 255;
  }
  return { width, height, channels: 3, pixels: rgb };
}

async function decodeUnchecked(bytes: Uint8Array, format: ImageFormat, jpegSize: Size | null): Promise<Bitmap> {
  const compiled = await codecModules();
  if (format === "png") {
    const { width, height, framebuffer } = decodePng(compiled, bytes);
    return { width, height, channels: 4, pixels: framebuffer };
  }
  if (format === "jpeg") return jpegBitmap(decodeJpeg(compiled, bytes, jpegSize?.width ?? 0, jpegSize?.height ?? 0));
  const { width, height, frame } = gifFirstFrame(compiled, bytes);
  if (!frame) throw new Error("the GIF has no image");
  const rgba = new Uint8Array(width * height * 4);
  const columns = Math.max(0, Math.min(frame.width, width - frame.x));
  for (let row = 0; columns > 0 && row < frame.height && frame.y + row < height; row++) {
    const from = row * frame.width * 4;
    rgba.set(frame.buffer.subarray(from, from + columns * 4), ((frame.y + row) * width + frame.x) * 4);
  }
  return { width, height, channels: 4, pixels: rgba };
}

/**
 * Decodes the image (a GIF's first frame on its screen; a JPEG scaled down to cover `atLeast`), else UNSUPPORTED_IMAGE.
 * @example
 * ```ts
 * await decodeImage(await Deno.readFile("a.png"), "png", { full: { width: 64, height: 64 } });
 * ```
 */
export async function decodeImage(
  bytes: Uint8Array,
  format: ImageFormat,
  options: { full: Size; atLeast?: Size },
): Promise<Bitmap> {
  const jpegSize = format === "jpeg" && options.atLeast ? jpegDecodeSize(options.full, options.atLeast) : null;
  let bitmap: Bitmap;
  try {
    bitmap = await decodeUnchecked(bytes, format, jpegSize);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError("UNSUPPORTED_IMAGE", `the ${format.toUpperCase()} data cannot be decoded (${reason})`, {
      hint: "The file is truncated, corrupt or uses a variant the decoder does not support; re-export it as PNG.",
      details: { format, reason },
    });
  }
  if (bitmap.pixels.length !== bitmap.width * bitmap.height * bitmap.channels) {
    throw new ToolError("UNSUPPORTED_IMAGE", `the ${format.toUpperCase()} decoder returned an inconsistent bitmap`, {
      details: { format },
    });
  }
  return bitmap;
}
