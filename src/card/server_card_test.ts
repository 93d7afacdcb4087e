import { assert, assertEquals } from "../../testing/assert.ts";
import { parseArgs } from "../config.ts";
import { TOOL_NAMES } from "../catalog.ts";
import { CARD_META_KEY, SERVER_CARD_SCHEMA, serverCard } from "./server_card.ts";

function config(args: string[]) {
  const parsed = parseArgs(args);
  assert(parsed.kind === "run");
  return parsed.config;
}

Deno.test("serverCard: stdio card without remotes; real annotations even when tools/list fakes them", () => {
  const card = serverCard(config(["--dangerously-fake-readonly-annotations"]));
  assertEquals(card.$schema, SERVER_CARD_SCHEMA);
  assert(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(card.name), "draft name pattern");
  assert(card.description.length <= 100, "draft description bound");
  assert(card.icons.every((icon) => icon.src.startsWith("https://")), "server.json-shaped icons are https");
  assert(card.websiteUrl.startsWith("https://") && card.repository.source === "github");
  assertEquals(card.remotes, undefined);
  const details = card._meta[CARD_META_KEY];
  assertEquals(details.transport, "stdio");
  assertEquals(details.auth.scheme, "none");
  assertEquals(details.tools.map((tool) => tool.name), [...TOOL_NAMES]);
  const patch = details.tools.find((tool) => tool.name === "apply_patch")!;
  assertEquals(patch.annotations?.readOnlyHint, false);
});

Deno.test("serverCard: HTTP card names the endpoint and the bearer header, or no header with --http-no-auth", () => {
  const bearer = serverCard(config(["--http", ":8080"]), { url: "http://127.0.0.1:8080/mcp" });
  assertEquals(bearer.remotes?.[0].url, "http://127.0.0.1:8080/mcp");
  assertEquals(bearer.remotes?.[0].headers?.[0].isSecret, true);
  assertEquals(bearer._meta[CARD_META_KEY].auth.scheme, "bearer");
  const open = serverCard(config(["--http", ":8080", "--http-no-auth"]), { url: "http://127.0.0.1:8080/mcp" });
  assertEquals(open.remotes?.[0].headers, undefined);
  assertEquals(open._meta[CARD_META_KEY].auth.scheme, "none");
  assertEquals(serverCard(config(["--disable-view-image"]))._meta[CARD_META_KEY].tools.length, 17);
});
