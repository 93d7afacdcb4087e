import type { Snapshots } from "../paging/snapshots.ts";
import type { ClientCapabilities, Implementation, Server } from "../sdk/mod.ts";
import type { RootsReport } from "./roots.ts";

/** What the connected client told us, per MCP session. */
export interface SessionInfo {
  /** A random id of this session (the audit log's; not the HTTP Mcp-Session-Id, which is a credential). */
  id: string;
  protocolVersion: string | null;
  client: Implementation | null;
  capabilities: ClientCapabilities | null;
  transport: "stdio" | "http";
  /** Null when the roots were not asked (the command line chose). */
  roots: RootsReport | null;
}

/** Per-connection mutable state. */
export interface SessionState {
  /** Permissions granted through request_permissions for this session only. */
  grants: Set<string>;
  commandIds: Set<string>;
  snapshots: Snapshots;
}

const sessions = new WeakMap<Server, SessionInfo>();

/**
 * Records the session `server` serves (src/server.ts, as it creates the server).
 * @example
 * ```ts
 * declare const server: import("../sdk/mod.ts").Server;
 * declare const session: SessionInfo;
 * recordSession(server, session);
 * ```
 */
export function recordSession(server: Server, session: SessionInfo): void {
  sessions.set(server, session);
}

/**
 * What the client of `server` said at initialize (and about its roots), for the transport's own use.
 * @example
 * ```ts
 * declare const server: import("../sdk/mod.ts").Server;
 * sessionOf(server).protocolVersion; // "2025-06-18" once initialized
 * ```
 */
export function sessionOf(server: Server): SessionInfo {
  return sessions.get(server)!;
}
