import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";
import { decodeFixture, encodeFixture, exifSegment, makeBitmap, pixelAt } from "../testing/image_fixtures.ts";

const encoder = new TextEncoder();

/** One image block with the base64, and one short text block; nothing else. */
function imageBlock(result: CallResult): { bytes: Uint8Array; mimeType: string; base64: string } {
  assert(!result.isError, result.text);
  const images = result.content.filter((block) => block.type === "image");
  assertEquals(images.length, 1);
  assertEquals(result.content.map((block) => block.type), ["image", "text"]);
  const json = JSON.stringify(result.structured);
  assert(!json.includes(images[0].data!.slice(0, 64)), "base64 leaked into structuredContent");
  assert(!/base64|data:image/.test(json), "a data URL in structuredContent");
  assert(!result.text.includes(images[0].data!.slice(0, 64)), "base64 leaked into the text");
  assert(result.text.length < 600, "the text summary is short");
  return { bytes: Uint8Array.fromBase64(images[0].data!), mimeType: images[0].mimeType!, base64: images[0].data! };
}

function errorCode(result: CallResult): string {
  assert(result.isError, `expected an error, got ${result.text}`);
  return result.structured.error.code;
}

Deno.test("view_image: small images pass through byte for byte, with metadata and no base64 in structuredContent", async () => {
  await using server = await startServer();
  const ws = server.workspace;
  const transparent = makeBitmap(40, 30, (x, y) => [200, 10, 10, x < 20 ? 255 : (y * 8) % 256]);
  const files: Record<string, Uint8Array> = {
    "clear.png": await encodeFixture("png", transparent),
    "one.png": await encodeFixture("png", makeBitmap(1, 1, () => [1, 2, 3, 4])),
    "one.jpg": await encodeFixture("jpeg", makeBitmap(1, 1, () => [90, 90, 90, 255])),
    "one.gif": await encodeFixture("gif", makeBitmap(1, 1, () => [0, 255, 0, 255])),
    "photo.jpeg": await encodeFixture("jpeg", makeBitmap(320, 200, (x, y) => [x % 256, y, 128, 255])),
    "split.gif": await encodeFixture("gif", makeBitmap(64, 64, (x) => (x < 32 ? [255, 0, 0, 255] : [0, 0, 255, 255]))),
  };
  for (const [name, bytes] of Object.entries(files)) await Deno.writeFile(`${ws}/${name}`, bytes);

  const clear = await server.call("view_image", { path: "clear.png" });
  const block = imageBlock(clear);
  assertEquals(block.bytes, files["clear.png"]);
  assertEquals(block.mimeType, "image/png");
  assertEquals(clear.structured, {
    ok: true,
    path: "clear.png",
    media_type: "image/png",
    source_media_type: "image/png",
    bytes: files["clear.png"].length,
    output_bytes: files["clear.png"].length,
    original: { width: 40, height: 30 },
    output: { width: 40, height: 30 },
    resized: false,
    scale: 1,
    max_width: 1568,
    max_height: 1568,
    warnings: [],
  });
  assert(clear.text.startsWith("clear.png: PNG 40x30"), clear.text);
  const decoded = await decodeFixture(block.bytes);
  assertEquals(pixelAt(decoded, 30, 2), [200, 10, 10, 16]);

  for (const [name, mimeType] of [["one.png", "image/png"], ["one.jpg", "image/jpeg"], ["one.gif", "image/gif"]]) {
    const result = await server.call("view_image", { path: name });
    const one = imageBlock(result);
    assertEquals(one.mimeType, mimeType, name);
    assertEquals(one.bytes, files[name], name);
    assertEquals(result.structured.output, { width: 1, height: 1 }, name);
  }
  for (const name of ["photo.jpeg", "split.gif"]) {
    const result = await server.call("view_image", { path: name });
    assertEquals(imageBlock(result).bytes, files[name], name);
    assertEquals(result.structured.resized, false);
  }
});

Deno.test("view_image: large images are reduced keeping the aspect ratio and re-encoded in kind", async () => {
  await using server = await startServer();
  const ws = server.workspace;
  await Deno.writeFile(
    `${ws}/wide.png`,
    await encodeFixture("png", makeBitmap(8000, 100, (x) => (x < 4000 ? [255, 0, 0, 255] : [0, 0, 255, 128]))),
  );
  await Deno.writeFile(
    `${ws}/photo.jpg`,
    await encodeFixture("jpeg", makeBitmap(3000, 2000, (x, y) => [(x >> 4) % 256, (y >> 4) % 256, 90, 255])),
  );
  await Deno.writeFile(
    `${ws}/banner.gif`,
    await encodeFixture("gif", makeBitmap(3000, 200, (x) => (x < 1500 ? [0, 255, 0, 255] : [255, 255, 0, 255]))),
  );

  await Deno.writeFile(`${ws}/strip.png`, await encodeFixture("png", makeBitmap(1, 5000, () => [9, 9, 9, 255])));
  const strip = await server.call("view_image", { path: "strip.png" });
  assertEquals([strip.structured.output, strip.structured.scale], [{ width: 1, height: 1568 }, 1568 / 5000]);
  assertEquals((await decodeFixture(imageBlock(strip).bytes)).height, 1568);

  const wide = await server.call("view_image", { path: "wide.png" });
  const wideBlock = imageBlock(wide);
  assertEquals(wideBlock.mimeType, "image/png");
  const wideOut = await decodeFixture(wideBlock.bytes);
  assertEquals([wideOut.format, wideOut.width, wideOut.height], ["png", 1568, 20]);
  assertEquals(pixelAt(wideOut, 10, 10), [255, 0, 0, 255]);
  assertEquals(pixelAt(wideOut, 1200, 10), [0, 0, 255, 128]);
  assertEquals(wide.structured.original, { width: 8000, height: 100 });
  assertEquals(wide.structured.output, { width: 1568, height: 20 });
  assertEquals(wide.structured.resized, true);
  assertEquals(wide.structured.scale, 1568 / 8000);
  assertEquals(wide.structured.output_bytes, wideBlock.bytes.length);

  const photo = await server.call("view_image", { path: "photo.jpg" });
  const photoBlock = imageBlock(photo);
  assertEquals(photoBlock.mimeType, "image/jpeg");
  const photoOut = await decodeFixture(photoBlock.bytes);
  assertEquals([photoOut.format, photoOut.width, photoOut.height], ["jpeg", 1568, 1045]);
  assert(photo.text.includes("resized to 1568x1045"), photo.text);
  // 1568 px on the long edge is the default (what Claude scales to anyway); the arguments raise it.
  const raised = await server.call("view_image", { path: "photo.jpg", max_width: 2048, max_height: 2048 });
  assertEquals([raised.structured.output, raised.structured.max_width], [{ width: 2048, height: 1365 }, 2048]);
  assert(raised.text.includes("resized to 2048x1365"), raised.text);

  // A large image renders off the server's thread: a call made meanwhile is answered first.
  const order: string[] = [];
  await Promise.all([
    server.call("view_image", { path: "photo.jpg" }).then(() => order.push("view_image")),
    server.call("server_info").then(() => order.push("server_info")),
  ]);
  assertEquals(order, ["server_info", "view_image"]);

  // Over 2048x2048 pixels the work runs in a worker: a pass-through comes back byte for byte from it too.
  const whole = await server.call("view_image", { path: "photo.jpg", max_width: 3000, max_height: 3000 });
  assertEquals(imageBlock(whole).bytes, await Deno.readFile(`${ws}/photo.jpg`));
  assertEquals(whole.structured.resized, false);
  await Deno.writeFile(
    `${ws}/big.png`,
    await encodeFixture("png", makeBitmap(2500, 1800, (x) => (x < 1250 ? [0, 0, 0, 0] : [10, 200, 30, 255]))),
  );
  const big = await server.call("view_image", { path: "big.png" });
  const bigOut = await decodeFixture(imageBlock(big).bytes);
  assertEquals([bigOut.format, bigOut.width, bigOut.height], ["png", 1568, 1129]);
  assertEquals([pixelAt(bigOut, 0, 0)[3], pixelAt(bigOut, 1567, 1128)], [0, [10, 200, 30, 255]]);

  // Errors raised inside the worker come back with their code.
  const photoBytes = await Deno.readFile(`${ws}/photo.jpg`);
  await Deno.writeFile(`${ws}/photo-cut.jpg`, photoBytes.subarray(0, photoBytes.length >> 1));
  assertEquals(errorCode(await server.call("view_image", { path: "photo-cut.jpg" })), "UNSUPPORTED_IMAGE");

  const boxed = await server.call("view_image", { path: "photo.jpg", max_width: 300, max_height: 100 });
  const boxedOut = await decodeFixture(imageBlock(boxed).bytes);
  assertEquals([boxedOut.width, boxedOut.height], [150, 100]);
  assertEquals([boxed.structured.max_width, boxed.structured.max_height], [300, 100]);

  // Parallel calls queue up (one decode at a time) and all succeed.
  const parallel = await Promise.all(
    ["wide.png", "photo.jpg", "wide.png"].map((path) => server.call("view_image", { path })),
  );
  assertEquals(parallel.map((result) => result.structured.output.height), [20, 1045, 20]);

  const banner = await server.call("view_image", { path: "banner.gif", max_height: 50 });
  const bannerBlock = imageBlock(banner);
  assertEquals(bannerBlock.mimeType, "image/png");
  const bannerOut = await decodeFixture(bannerBlock.bytes);
  assertEquals([bannerOut.format, bannerOut.width, bannerOut.height], ["png", 750, 50]);
  assertEquals(pixelAt(bannerOut, 100, 25), [0, 255, 0, 255]);
  assertEquals(banner.structured.source_media_type, "image/gif");
  assert(banner.structured.warnings.some((warning: string) => warning.includes("re-encoded as PNG")));
});

Deno.test("view_image: the type comes from the bytes; corrupt, truncated and foreign data is UNSUPPORTED_IMAGE", async () => {
  await using server = await startServer();
  const ws = server.workspace;
  const pattern = makeBitmap(300, 200, (x, y) => [x % 256, y, (x ^ y) % 256, 255]);
  const png = await encodeFixture("png", pattern);
  await Deno.writeFile(`${ws}/really-a-png.jpg`, png);
  for (const format of ["png", "jpeg", "gif"] as const) {
    const bytes = await encodeFixture(format, pattern);
    await Deno.writeFile(`${ws}/cut.${format}`, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await Deno.writeFile(`${ws}/head-only.${format}`, bytes.subarray(0, 40));
  }
  await Deno.writeFile(`${ws}/notes.png`, encoder.encode("just some text\n"));
  await Deno.writeFile(`${ws}/empty.gif`, new Uint8Array());
  await Deno.writeFile(`${ws}/pic.webp`, encoder.encode("RIFF\x10\0\0\0WEBPVP8 \0\0\0\0"));
  const jpeg = await encodeFixture("jpeg", pattern);
  await Deno.writeFile(
    `${ws}/sideways.jpg`,
    new Uint8Array([...jpeg.subarray(0, 2), ...exifSegment(6), ...jpeg.subarray(2)]),
  );
  const garbled = png.slice();
  garbled.fill(0x5a, 60, 400);
  await Deno.writeFile(`${ws}/garbled.png`, garbled);

  const renamed = await server.call("view_image", { path: "really-a-png.jpg" });
  const block = imageBlock(renamed);
  assertEquals(block.mimeType, "image/png");
  assertEquals(block.bytes, png);
  assertEquals(renamed.structured.media_type, "image/png");
  assert(renamed.structured.warnings[0].includes("named like JPEG but contains PNG"), renamed.text);
  assert(renamed.text.includes("Warning:"), renamed.text);

  const sideways = await server.call("view_image", { path: "sideways.jpg" });
  assertEquals(imageBlock(sideways).mimeType, "image/jpeg");
  assert(sideways.structured.warnings[0].includes("EXIF orientation is 6 (rotate 90° clockwise)"), sideways.text);

  for (const name of ["cut.png", "cut.jpeg", "cut.gif", "head-only.png", "head-only.jpeg", "head-only.gif"]) {
    assertEquals(errorCode(await server.call("view_image", { path: name })), "UNSUPPORTED_IMAGE", name);
  }
  for (const name of ["notes.png", "empty.gif", "pic.webp", "garbled.png"]) {
    assertEquals(errorCode(await server.call("view_image", { path: name })), "UNSUPPORTED_IMAGE", name);
  }
  const webp = await server.call("view_image", { path: "pic.webp" });
  assert(webp.text.includes("WebP"), webp.text);
});

Deno.test("view_image: size caps, confinement and file kinds", async () => {
  const ws = await tempWorkspace();
  const outside = await tempWorkspace();
  try {
    await using server = await startServer({ workspace: ws });
    // Over 20 MiB on disk (sparse): refused before reading.
    const big = await Deno.open(`${ws}/huge.png`, { write: true, create: true });
    await big.truncate(20 * 1024 * 1024 + 1);
    big.close();
    // A tiny PNG whose header claims 100000x100000 pixels: refused before decoding.
    const bomb = (await encodeFixture("png", makeBitmap(2, 2, () => [0, 0, 0, 255]))).slice();
    new DataView(bomb.buffer).setUint32(16, 100000);
    new DataView(bomb.buffer).setUint32(20, 100000);
    await Deno.writeFile(`${ws}/bomb.png`, bomb);
    await Deno.writeFile(`${outside}/secret.png`, await encodeFixture("png", makeBitmap(2, 2, () => [9, 9, 9, 255])));
    await Deno.symlink(`${outside}/secret.png`, `${ws}/link.png`);
    await Deno.symlink(outside, `${ws}/linkdir`);
    await Deno.mkdir(`${ws}/dir.png`);
    await new Deno.Command("mkfifo", { args: [`${ws}/pipe.png`] }).output();

    const huge = await server.call("view_image", { path: "huge.png" });
    assertEquals(errorCode(huge), "FILE_TOO_LARGE");
    assertEquals(huge.structured.error.details.max_bytes, 20 * 1024 * 1024);
    const tooManyPixels = await server.call("view_image", { path: "bomb.png" });
    assertEquals(errorCode(tooManyPixels), "FILE_TOO_LARGE");
    assert(tooManyPixels.text.includes("100000x100000"), tooManyPixels.text);

    for (const path of ["../secret.png", `${outside}/secret.png`, "link.png", "linkdir/secret.png", "/etc/passwd"]) {
      assertEquals(errorCode(await server.call("view_image", { path })), "PATH_OUTSIDE_WORKSPACE", path);
    }
    assertEquals(errorCode(await server.call("view_image", { path: "missing.png" })), "NOT_FOUND");
    assertEquals(errorCode(await server.call("view_image", { path: "dir.png" })), "NOT_A_FILE");
    // A FIFO is refused without opening it (opening would block until a writer appears).
    assertEquals(errorCode(await server.call("view_image", { path: "pipe.png" })), "NOT_A_FILE");
    const invalid = await server.call("view_image", { path: "bomb.png", max_width: 0 });
    assertEquals(errorCode(invalid), "INVALID_ARGUMENT");
    assertEquals(invalid.structured.error.details.fields, ["max_width"]);
    // The server still serves after all of the above.
    assert(!(await server.call("server_info")).isError);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("view_image: an image whose base64 would pass 5,000,000 characters is reduced until it fits, PNG staying PNG", async () => {
  await using server = await startServer();
  // 4.6 MiB of noise that fits the default box: sent whole, its base64 would be 6.5 million characters.
  const bitmap = makeBitmap(1100, 1100, () => [0, 0, 0, 255]);
  for (let at = 0; at < bitmap.pixels.length; at += 65536) {
    crypto.getRandomValues(bitmap.pixels.subarray(at, at + 65536));
  }
  const noise = await encodeFixture("png", bitmap);
  assert(noise.length > 4.5 * 1024 * 1024 && noise.length < 5 * 1024 * 1024, `fixture: ${noise.length}`);
  await Deno.writeFile(`${server.workspace}/noise.png`, noise);
  const result = await server.call("view_image", { path: "noise.png" });
  const block = imageBlock(result);
  assertEquals(block.mimeType, "image/png");
  assert(block.base64.length <= 5_000_000, `${block.base64.length}`);
  const out = await decodeFixture(block.bytes);
  assertEquals([out.width, out.height], [result.structured.output.width, result.structured.output.height]);
  assertEquals(out.width, out.height);
  assert(out.width < 1100 && out.width > 700, `${out.width}`);
  assertEquals(result.structured.resized, true);
  assert(result.structured.warnings.some((warning: string) => warning.includes("cap")), result.text);
});
