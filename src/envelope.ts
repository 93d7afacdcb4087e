/**
 * The result envelope: bounded `content` text and `structuredContent` within the result ceiling; the checks are guards.
 * @example
 * ```ts
 * ok({ text: "3 files", data: { files: ["a.ts", "b.ts", "c.ts"] } }, 48_000);
 * ```
 */
import { ToolError } from "./errors.ts";
import type { ToolOutput } from "./tools/tool.ts";
import type { CallToolResult } from "./sdk/mod.ts";
import { utf8CutIndex } from "./text/utf8.ts";
import { MAX_TEXT_BYTES } from "./paging/budget.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes on a character boundary, with a marker saying how much was cut.
 * @example
 * ```ts
 * boundText("é".repeat(10000)); // ends with "[… 3662 more bytes cut from this text …]"
 * ```
 */
export function boundText(text: string, maxBytes = MAX_TEXT_BYTES): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = (cut: number) => `\n[… ${cut} more bytes cut from this text …]`;
  const end = utf8CutIndex(bytes, maxBytes - encoder.encode(marker(bytes.length)).length);
  return decoder.decode(bytes.subarray(0, end)) + marker(bytes.length - end);
}

/** The success envelope, or RESULT_TOO_LARGE when the structured value is over `maxResultChars`. */
export function ok(output: ToolOutput, maxResultChars: number): CallToolResult {
  const structuredContent = { ok: true, ...output.data };
  const chars = JSON.stringify(structuredContent).length;
  if (chars > maxResultChars) {
    return fail(
      new ToolError("RESULT_TOO_LARGE", `the result is ${chars} characters, over the ${maxResultChars} ceiling`, {
        details: { chars, max_result_chars: maxResultChars },
      }),
    );
  }
  const content: CallToolResult["content"] = [];
  if (output.image) content.push({ type: "image", data: output.image.data, mimeType: output.image.mimeType });
  if (output.text.length > 0 || !output.image) content.push({ type: "text", text: boundText(output.text) });
  return { content, structuredContent, isError: false };
}

/** The error envelope; anything that is not a ToolError becomes INTERNAL. */
export function fail(error: unknown): CallToolResult {
  const toolError = error instanceof ToolError
    ? error
    : new ToolError("INTERNAL", error instanceof Error ? error.message : String(error), { cause: error });
  const text = `${toolError.code}: ${toolError.message}\nHint: ${toolError.hint}`;
  return {
    content: [{ type: "text", text: boundText(text) }],
    structuredContent: {
      ok: false,
      error: {
        code: toolError.code,
        message: toolError.message,
        hint: toolError.hint,
        details: toolError.details,
      },
    },
    isError: true,
  };
}
