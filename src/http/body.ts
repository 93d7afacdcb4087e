import { jsonRpcError } from "./responses.ts";
import { joinBytes } from "../text/join_bytes.ts";

/**
 * The parsed JSON body, or the 413/400 to send: over `maxBytes` is refused by Content-Length or cut off mid-stream.
 * @example
 * ```ts
 * await readJsonBody(new Request("http://x/mcp", { method: "POST", body: "{}" }), 4 << 20); // { value: {} }
 * ```
 */
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
  try {
    return { value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(joinBytes(chunks))) };
  } catch (error) {
    return jsonRpcError(400, -32700, `Parse error: ${(error as Error).message}`);
  }
}
