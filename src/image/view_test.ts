import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { encodeFixture, makeBitmap } from "../../testing/image_fixtures.ts";
import { MAX_COSTLY_PIXELS, MAX_IMAGE_PIXELS, viewImage } from "./view.ts";
import { ImageRenderer } from "./renderer.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { ToolError } from "../errors.ts";

Deno.test("viewImage: aborting stops a large image rendering in its worker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "workcell-view-" });
  try {
    const abs = `${dir}/photo.jpg`;
    await Deno.writeFile(
      abs,
      await encodeFixture("jpeg", makeBitmap(3000, 2000, (x, y) => [x % 256, y % 256, 0, 255])),
    );
    const ws = openWorkspace(dir);
    const box = { width: 512, height: 512 };
    const renderer = new ImageRenderer();
    const done = await viewImage(ws, "photo.jpg", box, renderer);
    assertEquals(done.output, { width: 512, height: 341 });
    const controller = new AbortController();
    const started = performance.now();
    const view = viewImage(ws, "photo.jpg", box, renderer, controller.signal);
    setTimeout(() => controller.abort(new Error("cancelled by the client")), 20);
    const error = await assertRejects(() => view);
    assert(error instanceof Error && error.message === "cancelled by the client", String(error));
    assert(performance.now() - started < 5000);
    // The cancelled worker was terminated; the next view has a fresh one.
    assertEquals((await viewImage(ws, "photo.jpg", box, renderer)).output, { width: 512, height: 341 });
    renderer.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("viewImage: a GIF whose first frame dwarfs its 1x1 screen is refused from its header, never decoded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "workcell-view-" });
  try {
    const le = (n: number) => [n & 0xff, n >> 8];
    // 35 bytes: a 1x1 screen, then a 23000x23000 frame (decoding it took 2 GB and 5 s on the server's thread).
    const bomb = new Uint8Array([
      ...new TextEncoder().encode("GIF89a"),
      ...[...le(1), ...le(1), 0x80, 0, 0, 0, 0, 0, 255, 255, 255],
      ...[0x2c, ...le(0), ...le(0), ...le(23000), ...le(23000), 0, 2, 2, 0x44, 0x01, 0, 0x3b],
    ]);
    await Deno.writeFile(`${dir}/bomb.gif`, bomb);
    const renderer = new ImageRenderer();
    const started = performance.now();
    const error = await assertRejects(() =>
      viewImage(openWorkspace(dir), "bomb.gif", { width: 2048, height: 2048 }, renderer)
    );
    renderer.close();
    assert(error instanceof ToolError && error.code === "FILE_TOO_LARGE", String(error));
    assert(error.message.includes("23000x23000 pixels in its first frame"), error.message);
    assert(performance.now() - started < 1000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("viewImage: a PNG over 16 Mi pixels is refused from its header; a baseline JPEG may have up to 64 Mi", async () => {
  const dir = await Deno.makeTempDir({ prefix: "workcell-view-" });
  try {
    // An IHDR of 8192x8192 RGBA, 8-bit, and nothing after it: the header decides (a real one took 862 MB).
    const png = new Uint8Array(33);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    new DataView(png.buffer).setUint32(16, 8192);
    new DataView(png.buffer).setUint32(20, 8192);
    png.set([8, 6], 24);
    await Deno.writeFile(`${dir}/big.png`, png);
    const renderer = new ImageRenderer();
    const error = await assertRejects(() =>
      viewImage(openWorkspace(dir), "big.png", { width: 2048, height: 2048 }, renderer)
    );
    renderer.close();
    assert(error instanceof ToolError && error.code === "FILE_TOO_LARGE", String(error));
    assert(error.message.includes("at most 16 Mi pixels of a PNG"), error.message);
    assertEquals(error.details.max_pixels, MAX_COSTLY_PIXELS);
    assert(MAX_IMAGE_PIXELS === 4 * MAX_COSTLY_PIXELS);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
