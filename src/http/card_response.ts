/**
 * The HTTP answer for the server card: its registered media type, CORS
 * headers so a browser-based tool on another origin can read it (the card is
 * public metadata: no token, no workspace path), and caching with an ETag so
 * a client can revalidate instead of refetching. The Host/Origin check in
 * front of it (./origin.ts) still applies.
 *
 * @example
 * ```ts
 * import { serverCard } from "../card/server_card.ts";
 * import type { Config } from "../config.ts";
 *
 * declare const config: Config;
 * async function handle(request: Request): Promise<Response> {
 *   return await cardResponse(request, serverCard(config, { url: "http://127.0.0.1:8080/mcp" }));
 * }
 * ```
 */

/** The media type the Server Card proposal registers for the card. */
export const SERVER_CARD_MEDIA_TYPE = "application/mcp-server-card+json";
/**
 * How long a client may reuse a card without asking: short, because a local
 * server restarted with other flags (--disable-view-image) lists other tools.
 */
export const CARD_MAX_AGE_SECONDS = 300;

const CARD_METHODS = "GET, HEAD, OPTIONS";

/** CORS headers of every card answer. */
export const CARD_CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": CARD_METHODS,
  "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
  "Access-Control-Expose-Headers": "ETag",
};

async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  return `"${Array.from(digest.subarray(0, 16), (byte) => byte.toString(16).padStart(2, "0")).join("")}"`;
}

/** Whether an If-None-Match header names `etag` (or `*`); weak and strong forms compare alike here. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").map((tag) => tag.trim().replace(/^W\//, "")).some((tag) => tag === etag || tag === "*");
}

/**
 * Answers a request for the card: 200 with the JSON (HEAD: headers only),
 * 304 when If-None-Match names the current ETag, 204 to a CORS preflight,
 * 405 to any other method.
 */
export async function cardResponse(request: Request, card: unknown): Promise<Response> {
  if (request.method === "OPTIONS") {
    return new Response(null, { status: 204, headers: { ...CARD_CORS_HEADERS, "Access-Control-Max-Age": "86400" } });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { ...CARD_CORS_HEADERS, Allow: CARD_METHODS } });
  }
  const body = JSON.stringify(card);
  const etag = await etagOf(body);
  const headers = {
    ...CARD_CORS_HEADERS,
    "Content-Type": SERVER_CARD_MEDIA_TYPE,
    "Cache-Control": `public, max-age=${CARD_MAX_AGE_SECONDS}`,
    ETag: etag,
  };
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : body, { headers });
}
