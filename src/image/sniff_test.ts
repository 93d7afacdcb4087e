import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { decodedPixels, formatFromName, sniffImage } from "./sniff.ts";
import { exifSegment } from "../../testing/image_fixtures.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function pngHead(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set(PNG_SIGNATURE);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set(new TextEncoder().encode("IHDR"), 12);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return bytes;
}

/** SOI, an APP0 segment, a DQT-like segment with 0xFF fill bytes before its marker, then SOF2. */
function jpegHead(width: number, height: number): Uint8Array {
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x06,
    0x4a,
    0x46,
    0x49,
    0x46,
    0xff,
    0xff,
    0xdb,
    0x00,
    0x03,
    0x00,
    0xff,
    0xc2,
    0x00,
    0x0b,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x01,
    0x01,
    0x11,
    0x00,
  ]);
}

function code(fn: () => unknown): string {
  const error = assertThrows(fn);
  assert(error instanceof ToolError, String(error));
  return `${error.code}: ${error.message}`;
}

Deno.test("sniffImage reads the size from PNG, JPEG and GIF headers", () => {
  assertEquals(sniffImage(pngHead(8000, 100)), { format: "png", mediaType: "image/png", width: 8000, height: 100 });
  // jpegHead's frame is SOF2: progressive, which view_image always decodes in its worker.
  assertEquals(sniffImage(jpegHead(6000, 4000)), {
    format: "jpeg",
    mediaType: "image/jpeg",
    width: 6000,
    height: 4000,
    progressive: true,
  });
  const baseline = jpegHead(6000, 4000).map((byte, i, all) => all[i - 1] === 0xff && byte === 0xc2 ? 0xc0 : byte);
  assertEquals(sniffImage(baseline).progressive, undefined);
  const gif = new Uint8Array([...new TextEncoder().encode("GIF89a"), 0x2c, 0x01, 0xc8, 0x00, 0, 0, 0]);
  assertEquals(sniffImage(gif), { format: "gif", mediaType: "image/gif", width: 300, height: 200 });
});

Deno.test("sniffImage names other formats and refuses them as UNSUPPORTED_IMAGE", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  assert(code(() => sniffImage(text("RIFF\0\0\0\0WEBPVP8 "))).includes("WebP"));
  assert(code(() => sniffImage(text("BM......"))).includes("BMP"));
  assert(code(() => sniffImage(text("\0\0\0\x18ftypheic"))).includes("HEIF"));
  assert(code(() => sniffImage(text("  <svg xmlns='http://www.w3.org/2000/svg'>"))).includes("SVG"));
  assert(code(() => sniffImage(text("hello world"))).includes("68 65 6c 6c 6f 20 77 6f"));
  assert(
    code(() => sniffImage(new Uint8Array())).startsWith(
      "UNSUPPORTED_IMAGE: not a PNG, JPEG or GIF image: the file is empty",
    ),
  );
});

Deno.test("sniffImage refuses cut or impossible headers", () => {
  assert(code(() => sniffImage(pngHead(10, 10).subarray(0, 20))).includes("no IHDR"));
  assert(code(() => sniffImage(pngHead(0, 10))).includes("0x10"));
  assert(code(() => sniffImage(jpegHead(10, 10).subarray(0, 18))).includes("ends before the frame header"));
  assert(code(() => sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).includes("before any frame"));
  assert(code(() => sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).includes("length 0"));
  assert(code(() => sniffImage(new TextEncoder().encode("GIF87a\x01"))).includes("cut off"));
});

Deno.test("formatFromName maps image extensions, case-insensitively", () => {
  assertEquals(formatFromName("a/b.JPG"), "jpeg");
  assertEquals(formatFromName("x.jpeg"), "jpeg");
  assertEquals(formatFromName("x.png"), "png");
  assertEquals(formatFromName("x.gif"), "gif");
  assertEquals(formatFromName("x.webp"), null);
  assertEquals(formatFromName("Makefile"), null);
});

Deno.test("sniffImage reads the EXIF orientation of a JPEG, in either byte order", () => {
  const head = jpegHead(40, 30);
  for (const little of [true, false]) {
    const bytes = new Uint8Array([0xff, 0xd8, ...exifSegment(6, little), ...head.subarray(2)]);
    assertEquals(sniffImage(bytes).orientation, 6);
  }
  assertEquals(sniffImage(head).orientation, undefined);
});

/** A GIF with a `screen` logical screen and one frame of `frame` size (a 2-colour table, an extension first). */
function gifWithFrame(screen: [number, number], frame: [number, number]): Uint8Array {
  const le = (n: number) => [n & 0xff, n >> 8];
  return new Uint8Array([
    ...new TextEncoder().encode("GIF89a"),
    ...le(screen[0]),
    ...le(screen[1]),
    0x80,
    0,
    0,
    ...[0, 0, 0, 255, 255, 255],
    ...[0x21, 0xf9, 4, 0, 0, 0, 0, 0], // a graphic control extension
    ...[0x2c, ...le(0), ...le(0), ...le(frame[0]), ...le(frame[1]), 0],
    ...[2, 2, 0x44, 0x01, 0, 0x3b],
  ]);
}

Deno.test("sniffImage reads a GIF's first frame size past its colour table and extensions; decodedPixels takes the larger", () => {
  const header = sniffImage(gifWithFrame([1, 1], [23000, 23000]));
  assertEquals([header.width, header.height, header.frame], [1, 1, { width: 23000, height: 23000 }]);
  assertEquals(decodedPixels(header), 23000 * 23000);
  assertEquals(decodedPixels(sniffImage(gifWithFrame([40, 30], [10, 10]))), 1200);
  // Cut before the descriptor: no frame size, the screen's.
  const cut = sniffImage(gifWithFrame([40, 30], [10, 10]).subarray(0, 20));
  assertEquals([cut.frame, decodedPixels(cut)], [undefined, 1200]);
});
