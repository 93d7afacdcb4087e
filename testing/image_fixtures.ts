import { Frame, GIF, Image } from "imagescript";
import { type Bitmap, decodeImage, type RgbaBitmap } from "../src/image/decode.ts";
import { encodeBitmap } from "../src/image/encode.ts";
import { type ImageFormat, sniffImage } from "../src/image/sniff.ts";
import { joinBytes } from "../src/text/join_bytes.ts";

/** A bitmap whose pixel (x, y) is `pixel(x, y)` as [r, g, b, a]. */
export function makeBitmap(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number],
): RgbaBitmap {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rgba.set(pixel(x, y), (y * width + x) * 4);
  }
  return { width, height, channels: 4, pixels: rgba };
}

/**
 * Encodes `bitmap` as `format` (GIF as one frame).
 * @example
 * ```ts
 * await encodeFixture("png", makeBitmap(4, 4, () => [255, 0, 0, 128]));
 * ```
 */
export async function encodeFixture(format: ImageFormat, bitmap: RgbaBitmap): Promise<Uint8Array> {
  if (format !== "gif") return (await encodeBitmap(bitmap, format)).bytes;
  const image = new Image(bitmap.width, bitmap.height);
  image.bitmap.set(bitmap.pixels);
  return await new GIF([Frame.from(image, 100)]).encode();
}

/** Decodes image bytes fully, type from the bytes. */
export async function decodeFixture(bytes: Uint8Array): Promise<Bitmap & { format: ImageFormat }> {
  const header = sniffImage(bytes);
  const bitmap = await decodeImage(bytes, header.format, { full: header });
  return { ...bitmap, format: header.format };
}

/** The RGBA of pixel (x, y) (opaque grey and RGB widened, alpha 255). */
export function pixelAt(bitmap: Bitmap, x: number, y: number): number[] {
  const at = (y * bitmap.width + x) * bitmap.channels;
  const samples = Array.from(bitmap.pixels.subarray(at, at + bitmap.channels));
  if (bitmap.channels === 4) return samples;
  return bitmap.channels === 3 ? [...samples, 255] : [samples[0], samples[0], samples[0], 255];
}

/** A JPEG APP1 segment (marker included) with an Exif IFD0 holding only the orientation tag. */
export function exifSegment(orientation: number, little = false): Uint8Array {
  const tiff = new Uint8Array(8 + 2 + 12 + 4);
  const view = new DataView(tiff.buffer);
  tiff.set(new TextEncoder().encode(little ? "II" : "MM"));
  view.setUint16(2, 42, little);
  view.setUint32(4, 8, little);
  view.setUint16(8, 1, little);
  view.setUint16(10, 0x0112, little);
  view.setUint16(12, 3, little);
  view.setUint32(14, 1, little);
  view.setUint16(18, orientation, little);
  const payload = [...new TextEncoder().encode("Exif\0\0"), ...tiff];
  const length = payload.length + 2;
  return new Uint8Array([0xff, 0xe1, length >> 8, length & 0xff, ...payload]);
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * A PNG of any colour type and bit depth (imagescript writes only 8-bit RGBA): unfiltered `rows`, `extra` before IDAT.
 * @example
 * ```ts
 * await rawPng({ width: 2, height: 1, bitDepth: 8, colorType: 0, rows: [new Uint8Array([0, 255])] });
 * ```
 */
export async function rawPng(options: {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  rows: Uint8Array[];
  extra?: [string, Uint8Array][];
}): Promise<Uint8Array> {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, options.width);
  view.setUint32(4, options.height);
  header.set([options.bitDepth, options.colorType, 0, 0, 0], 8);
  // Each row is preceded by its filter type, 0 (None).
  const raw = options.rows.flatMap((row) => [new Uint8Array([0]), row]) as Uint8Array<ArrayBuffer>[];
  const zlib = await new Response(new Blob(raw).stream().pipeThrough(new CompressionStream("deflate"))).bytes();
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    ...(options.extra ?? []).map(([type, data]) => chunk(type, data)),
    chunk("IDAT", zlib),
    chunk("IEND", new Uint8Array()),
  ];
  return joinBytes(parts);
}
