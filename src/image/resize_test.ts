import { assertEquals, assertThrows } from "../../testing/assert.ts";
import { makeBitmap, pixelAt } from "../../testing/image_fixtures.ts";
import { fitWithin, reduceBitmap } from "./resize.ts";

Deno.test("fitWithin keeps the aspect ratio, never enlarges, never goes below 1 pixel", () => {
  const box = { width: 2048, height: 2048 };
  assertEquals(fitWithin({ width: 6000, height: 4000 }, box), { width: 2048, height: 1365 });
  assertEquals(fitWithin({ width: 4000, height: 6000 }, box), { width: 1365, height: 2048 });
  assertEquals(fitWithin({ width: 8000, height: 100 }, box), { width: 2048, height: 26 });
  assertEquals(fitWithin({ width: 100000, height: 1 }, box), { width: 2048, height: 1 });
  assertEquals(fitWithin({ width: 1, height: 1 }, box), { width: 1, height: 1 });
  assertEquals(fitWithin({ width: 2048, height: 2048 }, box), { width: 2048, height: 2048 });
  assertEquals(fitWithin({ width: 300, height: 300 }, { width: 100, height: 50 }), { width: 50, height: 50 });
});

Deno.test("reduceBitmap averages areas: one-pixel stripes become an even grey, not a moire", () => {
  const stripes = makeBitmap(300, 30, (x) => (x % 2 === 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]));
  const small = reduceBitmap(stripes, { width: 100, height: 10 });
  for (const x of [0, 1, 50, 99]) {
    const [r, , , a] = pixelAt(small, x, 5);
    // Each output pixel covers three stripes: two of one colour, one of the other.
    if (r !== 85 && r !== 170) throw new Error(`pixel ${x}: ${r}`);
    assertEquals(a, 255);
  }
  const halves = reduceBitmap(stripes, { width: 150, height: 15 });
  for (const x of [0, 7, 149]) assertEquals(pixelAt(halves, x, 3), [128, 128, 128, 255]);
});

Deno.test("reduceBitmap weights colour by alpha so transparent pixels do not darken edges", () => {
  const edge = makeBitmap(2, 2, (x) => (x === 0 ? [255, 0, 0, 255] : [0, 0, 0, 0]));
  assertEquals(pixelAt(reduceBitmap(edge, { width: 1, height: 1 }), 0, 0), [255, 0, 0, 128]);
  const clear = makeBitmap(4, 4, () => [10, 20, 30, 0]);
  assertEquals(pixelAt(reduceBitmap(clear, { width: 1, height: 1 }), 0, 0), [0, 0, 0, 0]);
});

Deno.test("reduceBitmap keeps a uniform colour exact at any ratio and refuses to enlarge", () => {
  const teal = makeBitmap(1000, 7, () => [0, 128, 128, 255]);
  const small = reduceBitmap(teal, { width: 333, height: 3 });
  assertEquals(small.pixels.length, 333 * 3 * 4);
  for (let i = 0; i < small.pixels.length; i += 4) {
    assertEquals(Array.from(small.pixels.subarray(i, i + 4)), [0, 128, 128, 255]);
  }
  assertThrows(() => reduceBitmap(teal, { width: 1001, height: 7 }));
});

Deno.test("reduceBitmap reads opaque RGB and grey as their RGBA widening would be read", () => {
  const rgba = makeBitmap(9, 6, (x, y) => [x * 20, y * 30, (x * y) % 256, 255]);
  const widened = (channels: 1 | 3) => {
    const pixels = new Uint8Array(9 * 6 * channels);
    for (let i = 0; i < 9 * 6; i++) {
      for (let c = 0; c < channels; c++) pixels[i * channels + c] = rgba.pixels[i * 4 + (channels === 1 ? 0 : c)];
    }
    return { width: 9, height: 6, channels, pixels };
  };
  const size = { width: 4, height: 4 };
  assertEquals(reduceBitmap(widened(3), size), reduceBitmap(rgba, size));
  const grey = makeBitmap(9, 6, (x) => [x * 20, x * 20, x * 20, 255]);
  assertEquals(reduceBitmap(widened(1), size), reduceBitmap(grey, size));
});
