import { assert, assertEquals } from "../../testing/assert.ts";
import { CARD_MAX_AGE_SECONDS, cardResponse, SERVER_CARD_MEDIA_TYPE } from "./card_response.ts";

const URL_ = "http://127.0.0.1:8080/.well-known/mcp/server-card.json";
const CARD = { name: "io.github.x/y", version: "1.0.0" };

Deno.test("cardResponse: the card's media type, CORS for any origin, public caching and an ETag", async () => {
  const response = await cardResponse(new Request(URL_), CARD);
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), SERVER_CARD_MEDIA_TYPE);
  assertEquals(response.headers.get("access-control-allow-origin"), "*");
  assert(response.headers.get("access-control-allow-methods")!.includes("GET"));
  assertEquals(response.headers.get("cache-control"), `public, max-age=${CARD_MAX_AGE_SECONDS}`);
  assert(/^"[0-9a-f]{32}"$/.test(response.headers.get("etag")!), response.headers.get("etag")!);
  assertEquals(await response.json(), CARD);
});

Deno.test("cardResponse: If-None-Match with the ETag is a 304; another card gets another ETag", async () => {
  const etag = (await cardResponse(new Request(URL_), CARD)).headers.get("etag")!;
  const again = await cardResponse(new Request(URL_, { headers: { "If-None-Match": `W/${etag}, "other"` } }), CARD);
  assertEquals(again.status, 304);
  assertEquals(again.body, null);
  assertEquals(again.headers.get("etag"), etag);
  const changed = await cardResponse(new Request(URL_, { headers: { "If-None-Match": etag } }), { ...CARD, v: 2 });
  assertEquals(changed.status, 200);
  await changed.body?.cancel();
});

Deno.test("cardResponse: HEAD has headers only, a preflight 204, other methods 405 with Allow", async () => {
  const head = await cardResponse(new Request(URL_, { method: "HEAD" }), CARD);
  assertEquals([head.status, head.body, head.headers.get("content-type")], [200, null, SERVER_CARD_MEDIA_TYPE]);
  const preflight = await cardResponse(new Request(URL_, { method: "OPTIONS" }), CARD);
  assertEquals([preflight.status, preflight.headers.get("access-control-allow-origin")], [204, "*"]);
  const post = await cardResponse(new Request(URL_, { method: "POST", body: "{}" }), CARD);
  assertEquals(post.status, 405);
  assertEquals(post.headers.get("allow"), "GET, HEAD, OPTIONS");
});
