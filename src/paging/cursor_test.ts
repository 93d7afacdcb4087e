import { z } from "../zod.ts";
import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { Cursors, fitPage, queryKey, resumeChars } from "./cursor.ts";
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

Deno.test("fitPage keeps what fits with its cursor, and hands out the cursor after any number of its items", () => {
  const request = new Cursors("t", {}, []).request(position, 160);
  const build = (items: string[]) => ({ items, truncated: false, next_cursor: null as string | null });
  const items = ["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc", "dddddddddd"];
  // Ten items are over the 160 characters, four are not: the page ends where its items and cursor fit.
  const page = fitPage([...items, ...items, "eeeeeeeeee", "ffffffffff"], request, {
    more: false,
    start: 5,
    positionAfter: (item) => ({ after: item }),
    build,
  });
  assert(page.data.items.length < items.length, "the cursor takes room");
  assert(page.data.items.length > 0);
  assert(JSON.stringify(page.data).length <= 160, JSON.stringify(page.data));
  assertEquals([page.data.truncated, page.start], [true, 5]);
  assertEquals(page.data.next_cursor, request.encode({ after: page.data.items.at(-1)! }));
  assertEquals(page.cursorAfter(1), request.encode({ after: "aaaaaaaaaa" }));
  const whole = fitPage(items, { ...request, maxChars: 1000 }, {
    more: false,
    start: 0,
    positionAfter: (item) => ({ after: item }),
    build,
  });
  assertEquals([whole.data.items.length, whole.data.truncated, whole.data.next_cursor, whole.cursorAfter(4)], [
    4,
    false,
    null,
    null,
  ]);
  // All four fit in 160 with no cursor (nothing follows the fourth), though three of them and a cursor would not.
  const exact = fitPage(items, request, { more: false, start: 0, positionAfter: (item) => ({ after: item }), build });
  assertEquals([exact.data.items.length, exact.data.truncated, exact.data.next_cursor], [4, false, null]);
});

Deno.test("Cursors.query names the tool and the query, whatever the page arguments", () => {
  const query = (args: Record<string, unknown>) => new Cursors("list_files", args, ["limit"]).query;
  assertEquals(query({ path: "src", limit: 10 }), query({ path: "src", limit: 99, cursor: "x" }));
  assert(query({ path: "src" }) !== query({ path: "tests" }));
  assert(query({ path: "src" }).startsWith("list_files:"));
});
