/**
 * Plain HTTP answers of the transport that never reach the MCP layer
 * (refused origin, missing token, oversized body, unknown session, ...),
 * shaped as JSON-RPC errors the way the SDK's own transport answers.
 *
 * @example
 * ```ts
 * const refused: Response = jsonRpcError(403, -32000, "Forbidden: Origin not allowed");
 * ```
 */

/** A JSON-RPC error response with `id: null` and the given HTTP status. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}
