import { assert, assertEquals } from "../testing/assert.ts";
import { boundText, fail, ok } from "./envelope.ts";
import { MAX_TEXT_BYTES } from "./paging/budget.ts";
import { ToolError } from "./errors.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("boundText keeps short text and cuts long text on a UTF-8 boundary with a marker", () => {
  assertEquals(boundText("hello"), "hello");
  for (const unit of ["a", "é", "€", "😀"]) {
    const cut = boundText(unit.repeat(20000));
    assert(bytes(cut) <= MAX_TEXT_BYTES, `${unit}: ${bytes(cut)} bytes`);
    assert(!cut.includes("\uFFFD"), `${unit}: split character`);
    assert(/more bytes cut/.test(cut));
  }
  const exact = "a".repeat(MAX_TEXT_BYTES);
  assertEquals(boundText(exact), exact);
});

Deno.test("ok puts ok:true first and keeps the structured value complete", () => {
  const long = "x".repeat(100000);
  const result = ok({ text: long, data: { value: long } }, 200_000);
  assertEquals(result.isError, false);
  assertEquals(result.structuredContent, { ok: true, value: long });
  const text = result.content[0];
  assert(text.type === "text" && bytes(text.text) <= MAX_TEXT_BYTES);
});

Deno.test("ok with an image has exactly one image block, and a text block only when there is text", () => {
  const image = { data: "AAAA", mimeType: "image/png" };
  assertEquals(ok({ text: "", data: {}, image }, 100).content, [{
    type: "image",
    data: "AAAA",
    mimeType: "image/png",
  }]);
  assertEquals(ok({ text: "1x1", data: {}, image }, 100).content.map((block) => block.type), ["image", "text"]);
});

Deno.test("ok refuses a structured value over the ceiling with RESULT_TOO_LARGE", () => {
  const data = { value: "x".repeat(100) };
  assertEquals(ok({ text: "", data }, 200).isError, false);
  const over = ok({ text: "", data }, 100);
  const error = (over.structuredContent as { error: { code: string; details: Record<string, unknown> } }).error;
  assertEquals([over.isError, error.code, error.details.max_result_chars], [true, "RESULT_TOO_LARGE", 100]);
});

Deno.test("fail builds the error envelope from a ToolError, and INTERNAL from anything else", () => {
  const result = fail(new ToolError("NOT_FOUND", "x does not exist", { details: { path: "x" } }));
  assertEquals(result.isError, true);
  const structured = result.structuredContent as { ok: boolean; error: Record<string, unknown> };
  assertEquals(structured.ok, false);
  assertEquals(structured.error.code, "NOT_FOUND");
  assertEquals(structured.error.details, { path: "x" });
  const text = result.content[0];
  assert(text.type === "text" && text.text.startsWith("NOT_FOUND: x does not exist\nHint: "));
  const internal = fail(new Error("boom")).structuredContent as { error: { code: string; message: string } };
  assertEquals(internal.error.code, "INTERNAL");
  assertEquals(internal.error.message, "boom");
});
