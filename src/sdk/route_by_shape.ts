/**
 * Routes requests and notifications to the SDK protocol's own handlers by their keys, skipping Protocol.connect's
 * router and its two failing zod parses per message (docs/performance.md): our transports already validated each
 * message as JSON-RPC. Responses (client answers to elicitation and roots/list) still take the SDK's router.
 * `_onrequest`/`_onnotification` are TypeScript-private in @modelcontextprotocol/sdk 1.32.2, the version this was
 * checked against; the public API cannot skip the router, and connecting throws if a later SDK drops them. Kept
 * because it pays: over stdio a small read_file took 396 µs with it, 606 µs without.
 */
import type { JSONRPCMessage, Server, Transport } from "./mod.ts";

type Extra = Parameters<NonNullable<Transport["onmessage"]>>[1];

interface ProtocolHandlers {
  _onrequest(request: JSONRPCMessage, extra?: Extra): void;
  _onnotification(notification: JSONRPCMessage): void;
}

/**
 * Replaces the router `server.connect` set on `transport`; `tap` sees each message first, like an earlier `onmessage`.
 * @example
 * ```ts
 * import type { Server, Transport } from "./mod.ts";
 * declare const server: Server;
 * declare const transport: Transport;
 * await server.connect(transport);
 * routeByShape(server, transport);
 * ```
 */
export function routeByShape(server: Server, transport: Transport, tap?: (message: JSONRPCMessage) => void): void {
  const handlers = server as unknown as ProtocolHandlers;
  const sdkRouter = transport.onmessage;
  if (
    sdkRouter === undefined || typeof handlers._onrequest !== "function" ||
    typeof handlers._onnotification !== "function"
  ) {
    throw new Error("the MCP SDK's Protocol has no _onrequest/_onnotification: update src/sdk/route_by_shape.ts");
  }
  transport.onmessage = (message, extra) => {
    tap?.(message);
    if (!("method" in message)) sdkRouter(message, extra);
    else if ("id" in message) handlers._onrequest(message, extra);
    else handlers._onnotification(message);
  };
}
