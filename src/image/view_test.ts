import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { encodeFixture, makeBitmap } from "../testing/image_fixtures.ts";
import { viewImage } from "./view.ts";
import { ImageRenderer } from "./renderer.ts";
import { openWorkspace } from "../workspace/workspace.ts";

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
