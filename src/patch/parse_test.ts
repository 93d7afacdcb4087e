import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { parsePatch } from "./parse.ts";

Deno.test("parsePatch reads every grammar element into plain data", () => {
  const patch = parsePatch([
    "*** Begin Patch",
    "*** Add File: n.txt",
    "+one",
    "*** Delete File: d.txt",
    "*** Update File: u.py",
    "*** Move to: v.py",
    "@@ class A:",
    "@@     def f(self):",
    " ctx",
    "-old",
    "+new",
    "@@",
    "+tail",
    "*** End of File",
    "*** End Patch",
  ].join("\n"));
  assertEquals(patch.ops, [
    { kind: "add", path: "n.txt", lines: ["one"], line: 2 },
    { kind: "delete", path: "d.txt", line: 4 },
    {
      kind: "update",
      path: "u.py",
      moveTo: "v.py",
      line: 5,
      hunks: [
        {
          anchors: ["class A:", "    def f(self):"],
          lines: [{ kind: "context", text: "ctx" }, { kind: "remove", text: "old" }, { kind: "add", text: "new" }],
          eof: false,
          line: 7,
        },
        { anchors: [], lines: [{ kind: "add", text: "tail" }], eof: true, line: 12 },
      ],
    },
  ]);
});

Deno.test("parse errors name the line as sent, counting the heredoc and blank lines around it", () => {
  const error = assertThrows(() =>
    parsePatch("\n\ncat <<'EOF'\n*** Begin Patch\n*** Update File: a\n@@\n?bad\n*** End Patch\nEOF\n")
  );
  assert(error instanceof ToolError);
  assertEquals(error.code, "PATCH_PARSE_ERROR");
  assertEquals(error.details.line, 7);
});

Deno.test("a hunk line keeps \\x0c, \\u2028 and \\x85 as ordinary characters", () => {
  const patch = parsePatch("*** Begin Patch\n*** Update File: a\n@@\n-a\u2028b\x0c\x85\n+c\n*** End Patch");
  const op = patch.ops[0];
  assert(op.kind === "update");
  assertEquals(op.hunks[0].lines[0], { kind: "remove", text: "a\u2028b\x0c\x85" });
});
