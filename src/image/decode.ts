/**
 * Decoding PNG, JPEG and GIF (first frame) to RGBA with imagescript's
 * bundled WebAssembly decoders.
 *
 * The decoders are called directly rather than through `Image.decode`: the
 * public JPEG path copies pixel by pixel (about 7 s for a 6000x4000 photo
 * here), and the JPEG decoder can scale by 1/2, 1/4 or 1/8 while decoding,
 * which is most of the work of a large reduction done for a fraction of the
 * time and memory.
 *
 * @example
 * ```ts
 * const bytes = await Deno.readFile("photo.jpg");
 * const bitmap = await decodeImage(bytes, "jpeg", {
 *   full: { width: 6000, height: 4000 },
 *   atLeast: { width: 2048, height: 1365 },
 * });
 * ```
 */
import gifModule from "imagescript/wasm/node/gif.js";
import jpegModule from "imagescript/wasm/node/jpeg.js";
import pngModule from "imagescript/wasm/node/png.js";
import { ToolError } from "../errors.ts";
import type { ImageFormat } from "./sniff.ts";

/** Decoded pixels: `width * height` RGBA quadruplets, 8 bits each, not premultiplied. */
export interface Bitmap {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** A width and height. */
export interface Size {
  width: number;
  height: number;
}

/** imagescript's JPEG decoder; `width`/`height` ask for DCT scaling (0 = full size). */
interface JpegCodec {
  init(): Promise<{
    decode(data: Uint8Array, width: number, height: number): {
      width: number;
      height: number;
      /** 0 = grey, 1 = RGB, 2 = CMYK (Adobe, inverted). */
      format: number;
      buffer: Uint8Array;
    };
  }>;
}

/** imagescript's PNG decoder (always RGBA, 8 bits). */
interface PngCodec {
  init(): Promise<{ decode(data: Uint8Array): { width: number; height: number; framebuffer: Uint8Array } }>;
}

/** imagescript's GIF decoder: frames in file order, each RGBA at an offset on the logical screen. */
interface GifCodec {
  init(): Promise<{
    Decoder: new (data: Uint8Array) => {
      width: number;
      height: number;
      frame(): { x: number; y: number; width: number; height: number; buffer: Uint8Array } | null;
      free(): void;
    };
  }>;
}

const jpeg = jpegModule as unknown as JpegCodec;
const gif = gifModule as unknown as GifCodec;
const png = pngModule as unknown as PngCodec;

/** The JPEG decoder's scale factors, in eighths, smallest first. */
const JPEG_SCALES = [1, 2, 4, 8];

/**
 * The size to ask the JPEG decoder for: the smallest DCT scale whose result
 * still covers `atLeast` on both axes. The decoder picks the smallest scale
 * that reaches the request on either axis, so asking for exactly that
 * scale's size selects it.
 *
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

function jpegToRgba(decoded: { width: number; height: number; format: number; buffer: Uint8Array }): Uint8Array {
  const pixels = decoded.width * decoded.height;
  const source = decoded.buffer;
  const rgba = new Uint8Array(pixels * 4);
  if (decoded.format === 0) {
    for (let i = 0, o = 0; i < pixels; i++) {
      const grey = source[i];
      rgba[o++] = grey;
      rgba[o++] = grey;
      rgba[o++] = grey;
      rgba[o++] = 255;
    }
  } else if (decoded.format === 1) {
    for (let i = 0, o = 0; i < pixels * 3;) {
      rgba[o++] = source[i++];
      rgba[o++] = source[i++];
      rgba[o++] = source[i++];
      rgba[o++] = 255;
    }
  } else if (decoded.format === 2) {
    // Adobe CMYK is stored inverted: each stored value is 255 - ink, so R = C' * K' / 255.
    for (let i = 0; i < pixels * 4; i += 4) {
      const k = source[i + 3];
      rgba[i] = (source[i] * k) / 255;
      rgba[i + 1] = (source[i + 1] * k) / 255;
      rgba[i + 2] = (source[i + 2] * k) / 255;
      rgba[i + 3] = 255;
    }
  } else {
    throw new Error(`unknown JPEG pixel format ${decoded.format}`);
  }
  return rgba;
}

async function decodeUnchecked(bytes: Uint8Array, format: ImageFormat, jpegSize: Size | null): Promise<Bitmap> {
  if (format === "png") {
    const { width, height, framebuffer } = (await png.init()).decode(bytes);
    return { width, height, rgba: framebuffer };
  }
  if (format === "jpeg") {
    const decoded = (await jpeg.init()).decode(bytes, jpegSize?.width ?? 0, jpegSize?.height ?? 0);
    return { width: decoded.width, height: decoded.height, rgba: jpegToRgba(decoded) };
  }
  return await decodeGifFirstFrame(bytes);
}

/** The first frame placed on the transparent logical screen, clipped to it. */
async function decodeGifFirstFrame(bytes: Uint8Array): Promise<Bitmap> {
  const decoder = new (await gif.init()).Decoder(bytes);
  const frame = decoder.frame();
  decoder.free();
  if (!frame) throw new Error("the GIF has no image");
  const { width, height } = decoder;
  const rgba = new Uint8Array(width * height * 4);
  const columns = Math.max(0, Math.min(frame.width, width - frame.x));
  for (let row = 0; columns > 0 && row < frame.height && frame.y + row < height; row++) {
    const from = row * frame.width * 4;
    rgba.set(frame.buffer.subarray(from, from + columns * 4), ((frame.y + row) * width + frame.x) * 4);
  }
  return { width, height, rgba };
}

/**
 * Decodes the whole image (a GIF's first frame, composed on its logical
 * screen). For JPEG, `atLeast` lets the decoder scale down while decoding,
 * to the smallest size that still covers it. Any decoder failure (truncated
 * or corrupt data, an unsupported variant such as arithmetic-coded JPEG) is
 * `UNSUPPORTED_IMAGE` with the decoder's reason.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 *
 * const bytes = await Deno.readFile("logo.png");
 * const header = sniffImage(bytes);
 * const { width, height, rgba } = await decodeImage(bytes, header.format, { full: header });
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
  if (bitmap.rgba.length !== bitmap.width * bitmap.height * 4) {
    throw new ToolError("UNSUPPORTED_IMAGE", `the ${format.toUpperCase()} decoder returned an inconsistent bitmap`, {
      details: { format },
    });
  }
  return bitmap;
}
