import { assert, assertEquals } from "./testing/assert.ts";
import { MAX_DESCRIPTION_CHARS, REGISTRY_NAME, SERVER_DESCRIPTION, serverInfo } from "./metadata.ts";

Deno.test("metadata: the description fits the registry's bound and the name its reverse-DNS pattern", () => {
  assert(SERVER_DESCRIPTION.length <= MAX_DESCRIPTION_CHARS, `${SERVER_DESCRIPTION.length} characters`);
  assert(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(REGISTRY_NAME), REGISTRY_NAME);
});

Deno.test("serverInfo: the icon is an inline 512x512 PNG", () => {
  const [icon] = serverInfo().icons!;
  const png = Uint8Array.from(atob(icon.src.replace(/^data:image\/png;base64,/, "")), (c) => c.charCodeAt(0));
  assertEquals([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  const view = new DataView(png.buffer);
  assertEquals([view.getUint32(16), view.getUint32(20)], [512, 512]); // IHDR width, height
});
