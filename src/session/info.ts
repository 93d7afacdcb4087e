import type { Snapshots } from "../paging/snapshots.ts";
import type { ClientCapabilities, Implementation } from "../sdk/mod.ts";
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
