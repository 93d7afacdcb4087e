/** Every request passes the Host/Origin check; `/mcp` then needs the token, a bounded body, a session or initialize. */
import type { Config, HttpAddress } from "../config.ts";
import { SERVER_CARD_PATH, serverCard } from "../card/server_card.ts";
import { BearerGate } from "./auth.ts";
import { cardResponse } from "./card_response.ts";
import { readJsonBody } from "./body.ts";
import { OriginCheck } from "./origin.ts";
import { jsonRpcError } from "./responses.ts";
import { HttpSessions, MAX_REQUEST_BODY_BYTES, type OpenedSession } from "./sessions.ts";

/** The MCP endpoint. */
export const MCP_PATH = "/mcp";
/** The card is also offered where the draft names it, with and without `.json`, and beside the endpoint. */
const CARD_PATHS = [SERVER_CARD_PATH, SERVER_CARD_PATH.replace(/\.json$/, ""), `${MCP_PATH}/server-card`];
/** How long shutdown waits for open responses before it stops waiting. */
export const SHUTDOWN_GRACE_MS = 2_000;

/** What the HTTP server needs. */
export interface HttpServeOptions {
  address: HttpAddress;
  token: string | null;
  config: Config;
  openSession: () => OpenedSession;
}

/** A running HTTP server. */
export interface HttpService {
  /** Where it listens, with the real port. */
  readonly url: string;
  /** Ends every session, stops listening and waits (bounded) for open responses. */
  shutdown(): Promise<void>;
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) =>
    message !== null && typeof message === "object" && (message as { method?: unknown }).method === "initialize"
  );
}

/**
 * The MCP endpoint URL for an address.
 * @example
 * ```ts
 * endpointUrl({ host: "::1", port: 8080 }); // "http://[::1]:8080/mcp"
 * ```
 */
export function endpointUrl(address: HttpAddress): string {
  return `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}${MCP_PATH}`;
}

/** Builds the request handler (exported for tests that drive it without a socket). */
export function createHttpHandler(
  options: Omit<HttpServeOptions, "openSession">,
  sessions: HttpSessions,
): (request: Request) => Promise<Response> {
  const origins = new OriginCheck(options.address);
  const gate = options.token === null ? null : new BearerGate(options.token);
  const config = options.config; // the handler keeps the config, never the token itself
  return async (request) => {
    const problem = origins.problem(request);
    if (problem !== null) return jsonRpcError(403, -32000, `Forbidden: ${problem}`);
    const url = new URL(request.url);

    if (CARD_PATHS.includes(url.pathname)) {
      return cardResponse(
        request,
        serverCard(config, { url: `${url.protocol}//${request.headers.get("host")}${MCP_PATH}` }),
      );
    }
    if (url.pathname !== MCP_PATH) return jsonRpcError(404, -32601, `Not found: ${url.pathname}`);

    if (gate && !(await gate.accepts(request))) return gate.challenge(request);

    let body: unknown;
    if (request.method === "POST") {
      const read = await readJsonBody(request, MAX_REQUEST_BODY_BYTES);
      if (read instanceof Response) return read;
      body = read.value;
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) return await sessions.handle(sessionId, request, body);
    if (request.method === "POST" && isInitialize(body)) return await sessions.initialize(request, body);
    if (!["GET", "POST", "DELETE"].includes(request.method)) {
      return new Response(null, { status: 405, headers: { Allow: "GET, POST, DELETE" } });
    }
    return jsonRpcError(400, -32000, "Bad Request: No valid session ID provided");
  };
}

/** Serves `options.address` until {@linkcode HttpService.shutdown}; returns once bound, throws if binding fails. */
export function serveHttp(options: HttpServeOptions): HttpService {
  const sessions = new HttpSessions(options.openSession);
  const handler = createHttpHandler(options, sessions);
  // Binds at once (a failure throws here); onListen only silences Deno's own "Listening on" line.
  const server = Deno.serve({
    hostname: options.address.host,
    port: options.address.port,
    onListen: () => {},
    onError: (error) => {
      console.error("workcell: HTTP request failed:", error);
      return jsonRpcError(500, -32603, "Internal error");
    },
  }, handler);
  return {
    url: endpointUrl({ host: options.address.host, port: server.addr.port }),
    async shutdown() {
      await sessions.closeAll();
      const grace = new Promise<void>((done) => {
        const timer = setTimeout(done, SHUTDOWN_GRACE_MS);
        Deno.unrefTimer(timer);
      });
      await Promise.race([server.shutdown(), grace]);
    },
  };
}
