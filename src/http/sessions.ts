import type { JSONRPCMessage, Server } from "../sdk/mod.ts";
import { WebStandardStreamableHTTPServerTransport } from "../sdk/http_server.ts";
import { jsonRpcError } from "./responses.ts";
import { routeByShape } from "../sdk/route_by_shape.ts";

/** Most sessions kept at once. */
export const MAX_SESSIONS = 64;
/** A full table evicts its least recently used session only if it has been idle this long. */
export const SESSION_EVICT_IDLE_MS = 10 * 60_000;
/** Largest POST body accepted, in bytes (a big apply_patch fits comfortably). */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

/** A new session's Server, and optionally what sees each message first (src/server.ts initializeTap). */
export type OpenedSession = Server | { server: Server; tap: (message: JSONRPCMessage) => void };

/** One SDK transport and MCP Server per `Mcp-Session-Id`, from `initialize` until DELETE, eviction or shutdown. */
export class HttpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #open: () => OpenedSession;
  readonly #limits;
  #closed = false;

  /** `limits` bound the session table (tests lower them). */
  constructor(open: () => OpenedSession, limits = { maxSessions: MAX_SESSIONS, evictIdleMs: SESSION_EVICT_IDLE_MS }) {
    this.#open = open;
    this.#limits = limits;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Hands a request to the session it names (404 when there is none, as the spec asks). */
  async handle(sessionId: string, request: Request, parsedBody?: unknown): Promise<Response> {
    const session = this.#sessions.get(sessionId);
    if (!session) return jsonRpcError(404, -32001, "Session not found");
    session.lastSeen = Date.now();
    return await session.transport.handleRequest(request, { parsedBody });
  }

  async initialize(request: Request, parsedBody: unknown): Promise<Response> {
    if (this.#closed) return jsonRpcError(503, -32000, "Server is shutting down");
    if (this.#sessions.size >= this.#limits.maxSessions && !(await this.#evictIdle())) {
      return jsonRpcError(
        503,
        -32000,
        `Too many sessions (${this.#limits.maxSessions}); end one with DELETE /mcp or wait for an idle one to be evicted`,
      );
    }
    const opened = this.#open();
    const { server, tap } = "server" in opened ? opened : { server: opened, tap: undefined };
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, lastSeen: Date.now() });
      },
      maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    });
    // Chained by connect(): the Server's own close handling still runs after this.
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    if (tap) transport.onmessage = tap; // chained by the SDK's connect (1.32.2)
    await server.connect(transport);
    routeByShape(server, transport, tap);
    const response = await transport.handleRequest(request, { parsedBody });
    if (!transport.sessionId || !this.#sessions.has(transport.sessionId)) await server.close();
    return response;
  }

  async #evictIdle(): Promise<boolean> {
    let oldest: [string, Session] | null = null;
    for (const entry of this.#sessions) if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
    if (!oldest || Date.now() - oldest[1].lastSeen < this.#limits.evictIdleMs) return false;
    console.error(`workcell: evicting idle HTTP session ${oldest[0]}`);
    this.#sessions.delete(oldest[0]);
    await oldest[1].server.close();
    return true;
  }

  /** Closes every session (their streams end) and refuses new ones. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((session) => session.server.close()));
  }
}
