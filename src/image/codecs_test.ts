import { assert, assertEquals } from "../../testing/assert.ts";
import { encodeFixture, makeBitmap } from "../../testing/image_fixtures.ts";
import gifBindings from "imagescript/wasm/node/gif.js";
import jpegBindings from "imagescript/wasm/node/jpeg.js";
import pngBindings from "imagescript/wasm/node/png.js";
import { codecModules, decodeJpeg, decodePng, gifFirstFrame } from "./codecs.ts";
import { renderImage } from "./render.ts";
import { ImageRenderer } from "./renderer.ts";
import { sniffImage } from "./sniff.ts";

// imagescript's own bindings, which codecs.ts replaces: the same exports must give the same pixels.
// deno-lint-ignore no-explicit-any
const own = (bindings: unknown) => (bindings as any).init();

const picture = makeBitmap(97, 61, (x, y) => [x * 2, y * 4, (x * y) % 256, x < 40 ? 255 : 128]);

Deno.test("codecs: each decoder gives what imagescript's own bindings give", async () => {
  const compiled = await codecModules();
  const png = await encodeFixture("png", picture);
  assertEquals(decodePng(compiled, png), (await own(pngBindings)).decode(png));
  const jpeg = await encodeFixture("jpeg", picture);
  for (const [width, height] of [[0, 0], [49, 31], [13, 8]]) {
    assertEquals(decodeJpeg(compiled, jpeg, width, height), (await own(jpegBindings)).decode(jpeg, width, height));
  }
  const gif = await encodeFixture("gif", picture);
  const decoder = new (await own(gifBindings)).Decoder(gif);
  const { x, y, width, height, buffer } = decoder.frame();
  decoder.free();
  assertEquals(gifFirstFrame(compiled, gif), {
    width: decoder.width,
    height: decoder.height,
    frame: { x, y, width, height, buffer },
  });
});

Deno.test("codecs: compiled once per realm; a render worker runs the modules posted to it", async () => {
  assert((await codecModules()).jpeg === (await codecModules()).jpeg);
  const jpeg = await encodeFixture("jpeg", makeBitmap(300, 200, (x, y) => [x % 256, y, 90, 255]));
  const header = sniffImage(jpeg);
  const box = { width: 120, height: 120 };
  const inThread = await renderImage(jpeg, header, box, "a.jpg");
  const renderer = new ImageRenderer();
  try {
    const inWorker = await renderer.render({ source: jpeg.slice(), header, box, name: "a.jpg" });
    assertEquals(inWorker, inThread);
  } finally {
    renderer.close();
  }
});
