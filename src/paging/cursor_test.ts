import { z } from "zod";
import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { Cursors, queryKey, resumeChars } from "./cursor.ts";
import { ToolError } from "../errors.ts";

const position = z.object({ after: z.string() });

Deno.test("queryKey ignores the cursor, the page-size arguments and key order", () => {
  assertEquals(
    queryKey({ a: 1, b: [1, 2], limit: 5 }, ["limit"]),
    queryKey({ b: [1, 2], a: 1, cursor: "x" }, ["limit"]),
  );
  assert(queryKey({ a: 1 }, []) !== queryKey({ a: 2 }, []));
  assert(queryKey({ a: "1" }, []) !== queryKey({ a: 1 }, []));
});

Deno.test("a cursor round-trips its position for the same query, even with another page size", () => {
  const first = new Cursors("list_files", { glob: "*.ts", limit: 10 }, ["limit"]);
  assertEquals(first.position(position), null);
  const cursor = first.encode({ after: "src/é.ts" });
  assert(/^[A-Za-z0-9_-]+$/.test(cursor), cursor);
  assertEquals(resumeChars(first, { after: "src/é.ts" }), cursor.length - 2);
  const request = first.request(position, 1000);
  assertEquals([request.after, request.maxChars, request.encode({ after: "src/é.ts" })], [null, 1000, cursor]);
  const next = new Cursors("list_files", { glob: "*.ts", limit: 99, cursor }, ["limit"]);
  assertEquals(next.position(position), { after: "src/é.ts" });
});

Deno.test("a cursor reused with other arguments, another tool's, or a forged one is INVALID_ARGUMENT", () => {
  const cursor = new Cursors("list_files", { glob: "*.ts" }, []).encode({ after: "a" });
  const refused = (args: Record<string, unknown>, tool = "list_files") => {
    const error = assertThrows(() => new Cursors(tool, args, []).position(position));
    assert(error instanceof ToolError && error.code === "INVALID_ARGUMENT", String(error));
    assertEquals(error.details.field, "cursor");
    assert(error.hint.includes("repeat that call's arguments"), error.hint);
    return error.message;
  };
  assert(refused({ glob: "*.md", cursor }).includes("other arguments"));
  assert(refused({ glob: "*.ts", cursor }, "list_dir").includes("belongs to list_files"));
  assert(refused({ cursor: "not a cursor!" }).includes("not a cursor"));
  const forged = new Cursors("list_files", { glob: "*.ts" }, []).encode({ after: 42 });
  assert(refused({ glob: "*.ts", cursor: forged }).includes("not a cursor"));
});
