/**
 * Images made in the test itself: a bitmap from a pixel function, encoded
 * as PNG, JPEG or GIF with imagescript; and a decoder for what came back.
 *
 * @example
 * const bytes = await encodeFixture("png", makeBitmap(4, 4, () => [255, 0, 0, 128]));
 */
import { Frame, GIF, Image } from "imagescript";
import { type Bitmap, decodeImage } from "../src/image/decode.ts";
import { encodeBitmap } from "../src/image/encode.ts";
import { type ImageFormat, sniffImage } from "../src/image/sniff.ts";

/** A bitmap whose pixel (x, y) is `pixel(x, y)` as [r, g, b, a]. */
export function makeBitmap(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number],
): Bitmap {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rgba.set(pixel(x, y), (y * width + x) * 4);
  }
  return { width, height, rgba };
}

/** Encodes `bitmap` as `format` (GIF as one frame). */
export async function encodeFixture(format: ImageFormat, bitmap: Bitmap): Promise<Uint8Array> {
  if (format !== "gif") return (await encodeBitmap(bitmap, format)).bytes;
  const image = new Image(bitmap.width, bitmap.height);
  image.bitmap.set(bitmap.rgba);
  return await new GIF([Frame.from(image, 100)]).encode();
}

/** Decodes image bytes fully, type from the bytes. */
export async function decodeFixture(bytes: Uint8Array): Promise<Bitmap & { format: ImageFormat }> {
  const header = sniffImage(bytes);
  const bitmap = await decodeImage(bytes, header.format, { full: header });
  return { ...bitmap, format: header.format };
}

/** The RGBA of pixel (x, y). */
export function pixelAt(bitmap: Bitmap, x: number, y: number): number[] {
  const at = (y * bitmap.width + x) * 4;
  return Array.from(bitmap.rgba.subarray(at, at + 4));
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
