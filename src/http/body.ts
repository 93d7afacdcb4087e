/**
 * Reads a JSON request body with a hard size bound: a declared
 * `Content-Length` over the bound is refused before reading, and a streamed
 * body is cut off as soon as it passes the bound.
 *
 * @example
 * ```ts
 * async function handle(request: Request): Promise<Response> {
 *   const body = await readJsonBody(request, 4 * 1024 * 1024);
 *   if (body instanceof Response) return body; // 413 or 400
 *   return Response.json(body.value);
 * }
 * ```
 */
import { jsonRpcError } from "./responses.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** The parsed body, or the error response to send. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<{ value: unknown } | Response> {
  const tooLarge = () => jsonRpcError(413, -32000, `Request body larger than ${maxBytes} bytes`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) return tooLarge();
  if (!request.body) return jsonRpcError(400, -32700, "Parse error: empty body");
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return tooLarge();
    }
    chunks.push(value);
  }
  const bytes = joinBytes(chunks);
  try {
    return { value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
  } catch (error) {
    return jsonRpcError(400, -32700, `Parse error: ${(error as Error).message}`);
  }
}
