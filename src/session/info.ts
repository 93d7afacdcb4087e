/**
 * What one MCP session is: what its client said at initialize (and about
 * its roots), and the state it keeps for the connection. The server records
 * each session here as it creates it; the transport's own code (the late
 * workspace choice, the hand-off) reads it back by server.
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 *
 * declare const server: Server;
 * if (sessionOf(server).capabilities?.roots) console.error("the client has roots");
 * ```
 */
import type { Snapshots } from "../paging/snapshots.ts";
import type { ClientCapabilities, Implementation, Server } from "../sdk/mod.ts";
import type { RootsReport } from "./roots.ts";

/** What the connected client told us, per MCP session. */
export interface SessionInfo {
  /** A random id of this session (the audit log's; not the HTTP Mcp-Session-Id, which is a credential). */
  id: string;
  /** Protocol version negotiated at initialize, or null before it. */
  protocolVersion: string | null;
  client: Implementation | null;
  capabilities: ClientCapabilities | null;
  /** Transport the session arrived on. */
  transport: "stdio" | "http";
  /** What the client said when its roots were asked, or null when they were not (the command line chose). */
  roots: RootsReport | null;
}

/** Per-connection mutable state. */
export interface SessionState {
  /** Permissions granted through request_permissions for this session only. */
  grants: Set<string>;
  /** Command ids started by this session (commands are isolated per session). */
  commandIds: Set<string>;
  /** Listings kept for their next pages (src/paging/snapshots.ts). */
  snapshots: Snapshots;
}

const sessions = new WeakMap<Server, SessionInfo>();

/**
 * Records the session `server` serves (src/server.ts, as it creates the server).
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 *
 * declare const server: Server;
 * const id = crypto.randomUUID();
 * recordSession(server, { id, protocolVersion: null, client: null, capabilities: null, transport: "stdio", roots: null });
 * ```
 */
export function recordSession(server: Server, session: SessionInfo): void {
  sessions.set(server, session);
}

/**
 * What the client of `server` said at initialize (and about its roots), for the transport's own use.
 *
 * @example
 * ```ts
 * import type { Server } from "../sdk/mod.ts";
 *
 * declare const server: Server;
 * sessionOf(server).protocolVersion; // "2025-06-18" once initialized
 * ```
 */
export function sessionOf(server: Server): SessionInfo {
  return sessions.get(server)!;
}
