import { assert, assertEquals } from "../testing/assert.ts";
import { Image } from "imagescript";
import {
  ICON_FILE,
  MAX_DESCRIPTION_CHARS,
  REGISTRY_NAME,
  SERVER_DESCRIPTION,
  SERVER_INFO_ICON_FILE,
  serverInfo,
} from "./metadata.ts";

Deno.test("metadata: the description fits the registry's bound and the name its reverse-DNS pattern", () => {
  assert(SERVER_DESCRIPTION.length <= MAX_DESCRIPTION_CHARS, `${SERVER_DESCRIPTION.length} characters`);
  assert(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(REGISTRY_NAME), REGISTRY_NAME);
});

Deno.test("serverInfo: the icon is src/icon.png scaled to 64x64, inline", async () => {
  const [icon] = serverInfo().icons!;
  const png = Uint8Array.from(atob(icon.src.replace(/^data:image\/png;base64,/, "")), (c) => c.charCodeAt(0));
  assertEquals(png, Deno.readFileSync(SERVER_INFO_ICON_FILE));
  // Made by imagescript's Image.decode(icon.png).resize(64, 64).encode(9): the same pixels.
  const scaled = (await Image.decode(Deno.readFileSync(ICON_FILE))).resize(64, 64);
  assertEquals((await Image.decode(png)).bitmap, scaled.bitmap);
});
