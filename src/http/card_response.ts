import { createHash } from "node:crypto";

/** The media type the Server Card proposal registers for the card. */
export const SERVER_CARD_MEDIA_TYPE = "application/mcp-server-card+json";
/** How long a client may reuse a card: short, as a server restarted with other flags lists other tools. */
export const CARD_MAX_AGE_SECONDS = 300;

const CARD_METHODS = "GET, HEAD, OPTIONS";

/** CORS headers of every card answer: the card is public (no token, no workspace path), for tools on any origin. */
export const CARD_CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": CARD_METHODS,
  "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
  "Access-Control-Expose-Headers": "ETag",
};

/** Whether an If-None-Match header names `etag` (or `*`); weak and strong forms compare alike here. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").map((tag) => tag.trim().replace(/^W\//, "")).some((tag) => tag === etag || tag === "*");
}

/** The card's answer: 200 (HEAD: no body), 304 on a matching If-None-Match, 204 to a CORS preflight, else 405. */
export function cardResponse(request: Request, card: unknown): Response {
  if (request.method === "OPTIONS") {
    return new Response(null, { status: 204, headers: { ...CARD_CORS_HEADERS, "Access-Control-Max-Age": "86400" } });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response(null, { status: 405, headers: { ...CARD_CORS_HEADERS, Allow: CARD_METHODS } });
  }
  const body = JSON.stringify(card);
  const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`;
  const headers = {
    ...CARD_CORS_HEADERS,
    "Content-Type": SERVER_CARD_MEDIA_TYPE,
    "Cache-Control": `public, max-age=${CARD_MAX_AGE_SECONDS}`,
    ETag: etag,
  };
  if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : body, { headers });
}
