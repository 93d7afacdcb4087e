/** MCP Server Card (SEP-2127 draft v2); its annotations stay real even with --dangerously-fake-readonly-annotations. */
import { listedTools } from "../catalog_listing.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../sdk/mod.ts";
import { REGISTRY_NAME, registryIdentity } from "../metadata.ts";
import type { Config } from "../config.ts";

/** Where the HTTP transport serves the card. */
export const SERVER_CARD_PATH = "/.well-known/mcp/server-card.json";
/** The draft v2 Server Card schema the card declares. */
export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";
/** The `_meta` key holding workcell's own description. */
export const CARD_META_KEY = "workcell/server";
/** The card's name: the registry's reverse-DNS `namespace/name`, as the draft requires. */
export const CARD_NAME = REGISTRY_NAME;

/**
 * The card for this configuration; `http.url` is the MCP endpoint when serving HTTP (without it, it describes stdio).
 * @example
 * ```ts
 * import type { Config } from "../config.ts";
 * declare const config: Config;
 * serverCard(config, { url: "http://127.0.0.1:8080/mcp" });
 * ```
 */
export function serverCard(config: Config, http?: { url: string }) {
  const bearer = http !== undefined && !config.httpNoAuth;
  const protocolVersions = [...SUPPORTED_PROTOCOL_VERSIONS];
  const remotes = http && [{
    type: "streamable-http",
    url: http.url,
    ...(bearer
      ? {
        headers: [{
          name: "Authorization",
          description: "Bearer token given to the server with --auth-token-file or WORKCELL_AUTH_TOKEN",
          isRequired: true,
          isSecret: true,
          value: "Bearer {token}",
        }],
      }
      : {}),
    supportedProtocolVersions: protocolVersions,
  }];
  return {
    $schema: SERVER_CARD_SCHEMA,
    ...registryIdentity(),
    ...(remotes ? { remotes } : {}),
    _meta: {
      [CARD_META_KEY]: {
        transport: http ? "streamable-http" : "stdio",
        auth: { scheme: bearer ? "bearer" : "none" },
        capabilities: { tools: { listChanged: false } },
        protocolVersions,
        tools: listedTools({ ...config, fakeReadonlyAnnotations: false }),
      },
    },
  };
}
