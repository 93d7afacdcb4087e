import { assertEquals } from "../../tests/assert.ts";
import { ACCESS_FS, ACCESS_NET, landlockRuleset, readOnlyRuleset, SCOPE } from "./landlock.ts";

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

const READ = ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR;
const readOnly = { readable: "/ws", executables: ["/opt/rg"], readableFiles: ["/home/u/.gitignore"] };

Deno.test("readOnlyRuleset: reads beneath the root, exec of rg, single ignore files; every write handled", () => {
  const ruleset = readOnlyRuleset(7, readOnly);
  assertEquals(ruleset.handledFs, READ | ACCESS_FS.EXECUTE | landlockRuleset(7, roots).handledFs);
  assertEquals(ruleset.rules, [
    // TRUNCATE only so that Landlock's walk for it stops here (see readOnlyRuleset).
    { path: "/ws", access: READ | ACCESS_FS.TRUNCATE },
    { path: "/opt/rg", access: ACCESS_FS.EXECUTE | ACCESS_FS.READ_FILE },
    // File rights only on files (a directory right on a file is EINVAL).
    { path: "/home/u/.gitignore", access: ACCESS_FS.READ_FILE },
  ]);
  // No rule grants any other write right: rg writes, creates and removes nowhere, not even on a device.
  const writes = ruleset.handledFs & ~(READ | ACCESS_FS.EXECUTE | ACCESS_FS.TRUNCATE);
  assertEquals(ruleset.rules.filter((rule) => (rule.access & writes) !== 0n), []);
  assertEquals(ruleset.handledNet, ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP);
  assertEquals(ruleset.scoped, SCOPE.SIGNAL | SCOPE.ABSTRACT_UNIX_SOCKET);
});

Deno.test("readOnlyRuleset: older ABIs keep the read confinement and leave out what they cannot enforce", () => {
  const abi1 = readOnlyRuleset(1, readOnly);
  assertEquals(abi1.handledFs & READ, READ);
  assertEquals(abi1.handledFs & (ACCESS_FS.REFER | ACCESS_FS.TRUNCATE), 0n);
  assertEquals(abi1.rules[0].access, READ);
  assertEquals([abi1.handledNet, abi1.scoped], [0n, 0n]);
  assertEquals(readOnlyRuleset(5, readOnly).scoped, 0n);
  assertEquals(readOnlyRuleset(4, readOnly).handledNet, ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP);
});
