import * as path from "node:path";
import { assertEquals } from "../../testing/assert.ts";
import { codeOf, confineFixture, REFUSED } from "../../testing/confine_fixture.ts";
import { checkPath, isInside, toRelative } from "./confine.ts";

Deno.test("checkPath refuses every attack in the table", async (t) => {
  const { root, cleanup } = await confineFixture();
  const place = { root, given: root };
  try {
    for (const [input, code, options] of REFUSED) {
      await t.step(
        `${JSON.stringify(input.slice(0, 60))}${options?.allowMissing ? " (allowMissing)" : ""} -> ${code}`,
        () => {
          assertEquals(codeOf(() => checkPath(place, input, options)), code);
        },
      );
    }
  } finally {
    await cleanup();
  }
});

Deno.test("checkPath accepts paths that stay inside, reporting workspace-relative / paths", async () => {
  const { root, cleanup } = await confineFixture();
  const place = { root, given: root };
  try {
    assertEquals(checkPath(place, ".").rel, ".");
    assertEquals(checkPath(place, "src/a.ts").rel, "src/a.ts");
    assertEquals(checkPath(place, "./src//deep/../a.ts").rel, "src/a.ts");
    assertEquals(checkPath(place, path.join(root, "src", "a.ts")).rel, "src/a.ts");
    assertEquals(checkPath(place, "link-in").rel, "src/a.ts");
    assertEquals(checkPath(place, "dir-in/a.ts").rel, "src/a.ts");
    const created = checkPath(place, "src/new/file.ts", { allowMissing: true });
    assertEquals(created, { abs: path.join(root, "src", "new", "file.ts"), rel: "src/new/file.ts", exists: false });
    assertEquals(checkPath(place, "dir-in/new.ts", { allowMissing: true }).rel, "src/new.ts");
    assertEquals(toRelative(place, root), ".");
  } finally {
    await cleanup();
  }
});

Deno.test("absolute paths through a symlinked spelling of the root are accepted", async () => {
  const { root, cleanup } = await confineFixture();
  try {
    const alias = path.join(path.dirname(root), "ws-alias");
    const place = { root, given: alias };
    assertEquals(checkPath(place, path.join(alias, "src", "a.ts")).rel, "src/a.ts");
    assertEquals(codeOf(() => checkPath(place, path.join(alias, "..", "outside"))), "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await cleanup();
  }
});

Deno.test("a directory swapped for an outside symlink is caught on the next check", async () => {
  const { root, outside, cleanup } = await confineFixture();
  const place = { root, given: root };
  try {
    assertEquals(checkPath(place, "src/deep/x.ts", { allowMissing: true }).rel, "src/deep/x.ts");
    await Deno.remove(path.join(root, "src", "deep"), { recursive: true });
    await Deno.symlink(outside, path.join(root, "src", "deep"));
    assertEquals(codeOf(() => checkPath(place, "src/deep/x.ts", { allowMissing: true })), "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await cleanup();
  }
});

Deno.test("isInside: the one predicate, for absolute paths and for names relative to a root", () => {
  const cases: [string, string, boolean][] = [
    ["/ws", "/ws", true],
    ["/ws", "/ws/a", true],
    ["/ws", "/wsx", false],
    ["/ws", "/ws/../etc", false],
    ["/ws", "/ws/a/../b", true],
    ["/", "/anything", true],
    ["/ws", "a/b", true],
    ["/ws", "./a", true],
    ["/ws", "..", false],
    ["/ws", "a/../../b", false],
    ["/ws", "a/../b", true],
    ["/ws", "..a/b", true],
  ];
  for (const [root, target, inside] of cases) assertEquals(isInside(root, target), inside, `${root} ${target}`);
});
