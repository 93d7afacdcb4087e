import { assertEquals } from "../../tests/assert.ts";
import { ACCESS_FS, ACCESS_NET, landlockRuleset, SCOPE } from "./landlock.ts";

const roots = { writable: ["/ws", "/tmp/w"], denyTcp: true };

Deno.test("landlockRuleset: ABI 7 handles every write right, TCP and signal scoping", () => {
  const ruleset = landlockRuleset(7, roots);
  assertEquals(ruleset.handledFs & ACCESS_FS.READ_FILE, 0n);
  assertEquals(ruleset.handledFs & ACCESS_FS.EXECUTE, 0n);
  assertEquals(ruleset.handledFs & (ACCESS_FS.REFER | ACCESS_FS.TRUNCATE), ACCESS_FS.REFER | ACCESS_FS.TRUNCATE);
  assertEquals(ruleset.handledNet, ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP);
  assertEquals(ruleset.scoped, SCOPE.SIGNAL | SCOPE.ABSTRACT_UNIX_SOCKET);
  assertEquals(ruleset.rules.slice(0, 2).map((rule) => [rule.path, rule.access === ruleset.handledFs]), [
    ["/ws", true],
    ["/tmp/w", true],
  ]);
  // Devices get only file rights (a directory right on a file is EINVAL).
  const devNull = ruleset.rules.find((rule) => rule.path === "/dev/null")!;
  assertEquals(devNull.access, ACCESS_FS.WRITE_FILE | ACCESS_FS.TRUNCATE);
});

Deno.test("landlockRuleset: older ABIs leave out what they cannot enforce", () => {
  assertEquals(landlockRuleset(5, roots).scoped, 0n);
  assertEquals(landlockRuleset(3, roots).handledNet, 0n);
  assertEquals(landlockRuleset(1, roots).handledFs & (ACCESS_FS.REFER | ACCESS_FS.TRUNCATE), 0n);
  // Without denyTcp (trusted, or a network grant) TCP is not handled and abstract sockets stay open.
  const open = landlockRuleset(7, { ...roots, denyTcp: false });
  assertEquals([open.handledNet, open.scoped], [0n, SCOPE.SIGNAL]);
});
