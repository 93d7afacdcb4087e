import { assert, assertEquals, assertRejects, assertThrows } from "../../testing/assert.ts";
import { encodeFixture, makeBitmap, pixelAt, rawPng } from "../../testing/image_fixtures.ts";
import { sniffImage } from "./sniff.ts";
import { ToolError } from "../errors.ts";
import { decodeImage, jpegBitmap, jpegDecodeSize } from "./decode.ts";

Deno.test("jpegDecodeSize picks the smallest DCT scale that still covers the target on both axes", () => {
  const full = { width: 6000, height: 4000 };
  assertEquals(jpegDecodeSize(full, { width: 2048, height: 1365 }), { width: 3000, height: 2000 });
  assertEquals(jpegDecodeSize(full, { width: 700, height: 467 }), { width: 750, height: 500 });
  assertEquals(jpegDecodeSize(full, { width: 3500, height: 2333 }), full);
  // 1/4 would give 2000x25, short of 2048 wide.
  assertEquals(jpegDecodeSize({ width: 8000, height: 100 }, { width: 2048, height: 26 }), { width: 4000, height: 50 });
});

Deno.test("decodeImage decodes each format; JPEG scales while decoding", async () => {
  const bitmap = makeBitmap(64, 48, (x, y) => [x * 4, y * 5, 100, 255]);
  for (const format of ["png", "gif"] as const) {
    const decoded = await decodeImage(await encodeFixture(format, bitmap), format, { full: bitmap });
    assertEquals([decoded.width, decoded.height], [64, 48], format);
  }
  const jpeg = await encodeFixture("jpeg", bitmap);
  const full = await decodeImage(jpeg, "jpeg", { full: bitmap });
  assertEquals([full.width, full.height], [64, 48]);
  const quarter = await decodeImage(jpeg, "jpeg", { full: bitmap, atLeast: { width: 16, height: 12 } });
  assertEquals([quarter.width, quarter.height], [16, 12]);
  const [r, g, b, a] = pixelAt(full, 10, 10);
  assert(Math.abs(r - 40) < 12 && Math.abs(g - 50) < 12 && Math.abs(b - 100) < 12 && a === 255, `${[r, g, b, a]}`);
});

Deno.test("decodeImage turns truncated data into UNSUPPORTED_IMAGE for every format", async () => {
  const bitmap = makeBitmap(200, 100, (x, y) => [x, y, (x * y) % 256, 255]);
  for (const format of ["png", "jpeg", "gif"] as const) {
    const bytes = await encodeFixture(format, bitmap);
    const error = await assertRejects(() =>
      decodeImage(bytes.subarray(0, bytes.length >> 1), format, { full: bitmap })
    );
    assert(error instanceof ToolError && error.code === "UNSUPPORTED_IMAGE", `${format}: ${error}`);
  }
});

Deno.test("decodeImage places a GIF's first frame at its offset on the transparent logical screen", async () => {
  const { Frame, GIF, Image } = await import("imagescript");
  const first = new Image(20, 10);
  first.fill(0x00ff00ff);
  const second = new Image(30, 15);
  second.fill(0xff0000ff);
  const bytes = await new GIF([Frame.from(first, 100, 10, 5), Frame.from(second, 100)]).encode();
  const decoded = await decodeImage(bytes, "gif", { full: { width: 30, height: 15 } });
  assertEquals([decoded.width, decoded.height], [30, 15]);
  assertEquals(pixelAt(decoded, 0, 0)[3], 0);
  assertEquals(pixelAt(decoded, 15, 8), [0, 255, 0, 255]);
  assertEquals(pixelAt(decoded, 29, 14), [0, 255, 0, 255]);
  assertEquals(pixelAt(decoded, 9, 14)[3], 0);
});

Deno.test("decodeImage reads grey, grey+alpha, 16-bit and palette PNGs as 8-bit RGBA", async () => {
  const cases: { name: string; png: Uint8Array; expect: number[][] }[] = [
    {
      name: "grey 8-bit",
      png: await rawPng({ width: 2, height: 1, bitDepth: 8, colorType: 0, rows: [new Uint8Array([0, 200])] }),
      expect: [[0, 0, 0, 255], [200, 200, 200, 255]],
    },
    {
      name: "grey 1-bit",
      png: await rawPng({ width: 2, height: 1, bitDepth: 1, colorType: 0, rows: [new Uint8Array([0b01000000])] }),
      expect: [[0, 0, 0, 255], [255, 255, 255, 255]],
    },
    {
      name: "grey+alpha 8-bit",
      png: await rawPng({ width: 2, height: 1, bitDepth: 8, colorType: 4, rows: [new Uint8Array([10, 0, 250, 128])] }),
      expect: [[10, 10, 10, 0], [250, 250, 250, 128]],
    },
    {
      name: "RGB 16-bit",
      png: await rawPng({
        width: 1,
        height: 1,
        bitDepth: 16,
        colorType: 2,
        rows: [new Uint8Array([0xff, 0xff, 0x80, 0x00, 0x00, 0x00])],
      }),
      expect: [[255, 128, 0, 255]],
    },
    {
      name: "palette with tRNS",
      png: await rawPng({
        width: 2,
        height: 1,
        bitDepth: 8,
        colorType: 3,
        rows: [new Uint8Array([0, 1])],
        extra: [["PLTE", new Uint8Array([255, 0, 0, 0, 0, 255])], ["tRNS", new Uint8Array([0])]],
      }),
      expect: [[255, 0, 0, 0], [0, 0, 255, 255]],
    },
  ];
  for (const { name, png, expect } of cases) {
    const header = sniffImage(png);
    const decoded = await decodeImage(png, "png", { full: header });
    assertEquals(expect.map((_, x) => pixelAt(decoded, x, 0)), expect, name);
  }
});

Deno.test("jpegBitmap converts inverted Adobe CMYK to RGB and refuses CMYK pixels that do not fill the image", () => {
  // Stored inverted (255 is no ink): no cyan, full magenta, no yellow, no black is magenta, R 255 G 0 B 255.
  assertEquals(
    Array.from(jpegBitmap({ width: 1, height: 1, format: 2, buffer: new Uint8Array([255, 0, 255, 255]) }).pixels),
    [255, 0, 255],
  );
  const short = { width: 2, height: 2, format: 2, buffer: new Uint8Array(12) };
  const error = assertThrows(() => jpegBitmap(short));
  assert(String(error).includes("do not fill the image"), String(error));
});
