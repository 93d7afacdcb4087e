/**
 * Hands each incoming message to the SDK protocol's own handler by its
 * shape. The SDK's router (Protocol.connect) asks zod first whether a message
 * is a result or an error response: for every request and notification two
 * failing `safeParse` calls, each building its list of issues — about 0.1 ms
 * of the 1 ms a small call costs the server (docs/performance.md). Our
 * transports have already validated each message against the JSON-RPC
 * message schema, so its keys say what it is: a request has a `method` and
 * an `id`, a notification a `method` alone; anything else (the client's
 * answers to our elicitation and roots requests) still goes through the
 * SDK's router.
 *
 * The handlers are the SDK's (`_onrequest`, `_onnotification`): TypeScript-
 * private, not `#private`, in @modelcontextprotocol/sdk 1.32.2, the version
 * this adapter was checked against; the public API has no way to skip the
 * router. Connecting refuses loudly if a version without them is ever
 * installed. It is kept because it pays: through a real SDK Client over
 * stdio, 40 interleaved blocks of 200 calls, median per call, a small
 * read_file took 396 µs with it and 606 µs without (+53%), list_dir 428 vs
 * 567 µs (+32%); in-process the two failing parses alone cost 38-58 µs.
 *
 * @example
 * ```ts
 * import type { Server, Transport } from "./mod.ts";
 *
 * declare const server: Server;
 * declare const transport: Transport;
 * await server.connect(transport);
 * routeByShape(server, transport);
 * ```
 */
import type { JSONRPCMessage, Server, Transport } from "./mod.ts";

type Extra = Parameters<NonNullable<Transport["onmessage"]>>[1];

/** The protocol's per-kind handlers the SDK's router calls. */
interface ProtocolHandlers {
  _onrequest(request: JSONRPCMessage, extra?: Extra): void;
  _onnotification(notification: JSONRPCMessage): void;
}

/**
 * Replaces `transport`'s router (set by `server.connect`) with one that tells requests and notifications by key;
 * `tap`, when given, sees every message first (as the SDK's router calls an `onmessage` set before `connect`).
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
