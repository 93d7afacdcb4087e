/**
 * The file tools through a server on the POSIX fd backend (macOS's), which
 * `WORKCELL_FILE_BACKEND=posix-fd` selects on Linux: the same answers as
 * the system's own backend, the same refusals of every escape with nothing
 * outside touched, and a light run of the directory-swap races. The
 * backend's own acts are src/workspace/posix_fd_backend_test.ts; the rest
 * of the suite runs on the system's own backend.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { FILE_BACKEND_ENV } from "../src/workspace/workspace.ts";
import { startServer, type TestServer } from "./harness.ts";
import { fixture, outsideChanges, race, SECRET, snapshot } from "./reliability/outside.ts";

const POSIX_FD = { [FILE_BACKEND_ENV]: "posix-fd" };
/** Calls per race here: the heavy runs are the reliability suite's (tests/reliability/), on the system's backend. */
const CALLS = 40;

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");

/** Read-only calls whose answers must not depend on the backend. */
const READS: [string, Record<string, unknown>][] = [
  ["read_file", { path: "src/inside.txt" }],
  ["read_file", { path: "src/lines.txt", offset: 2, limit: 3 }],
  ["list_dir", { path: ".", depth: 3 }],
  ["list_files", { path: "." }],
  ["search_text", { pattern: "inside", path: "src" }],
  ["view_image", { path: "src/dot.png" }],
  ["read_file", { path: "src" }],
  ["list_dir", { path: "src/inside.txt" }],
  ["read_file", { path: "missing.txt" }],
];

Deno.test("posix-fd server: the file tools answer as on the system's own backend", async () => {
  const f = await fixture();
  try {
    await Deno.writeTextFile(path.join(f.workspace, "src", "lines.txt"), "1\n2\n3\n4\n5\n6\n");
    await Deno.copyFile(path.join(f.outside, "secret.png"), path.join(f.workspace, "src", "dot.png"));
    const answers = async (server: TestServer) => {
      const all = [];
      for (const [tool, args] of READS) {
        const result = await server.call(tool, args);
        all.push({ tool, args, isError: result.isError, structured: result.structured, text: result.text });
      }
      return all;
    };
    let own;
    {
      await using server = await startServer({ workspace: f.workspace });
      own = await answers(server);
    }
    await using posix = await startServer({ workspace: f.workspace, env: POSIX_FD });
    assertEquals(await answers(posix), own);
  } finally {
    await Deno.remove(f.base, { recursive: true });
  }
});

Deno.test("posix-fd server: apply_patch adds, updates, moves and deletes; exec_command runs in its workdir", async () => {
  await using server = await startServer({ env: POSIX_FD });
  const ws = server.workspace;
  await Deno.mkdir(path.join(ws, "src"));
  await Deno.writeTextFile(path.join(ws, "src", "a.txt"), "a\n");
  await Deno.writeTextFile(path.join(ws, "src", "gone.txt"), "gone\n");
  const result = await server.call("apply_patch", {
    patch: patch(
      "*** Add File: new/b.txt",
      "+b",
      "*** Update File: src/a.txt",
      "*** Move to: src/moved.txt",
      "@@",
      "-a",
      "+A",
      "*** Delete File: src/gone.txt",
    ),
  });
  assert(!result.isError, result.text);
  assertEquals(await Deno.readTextFile(path.join(ws, "new", "b.txt")), "b\n");
  assertEquals(await Deno.readTextFile(path.join(ws, "src", "moved.txt")), "A\n");
  assertEquals([...Deno.readDirSync(path.join(ws, "src"))].map((entry) => entry.name), ["moved.txt"]);
  const ls = await server.call("exec_command", { cmd: "cat moved.txt", workdir: "src" });
  assertEquals([ls.isError, ls.structured.stdout], [false, "A\n"], ls.text);
});

Deno.test("posix-fd server: every escape is refused and nothing outside is touched", async () => {
  const f = await fixture();
  try {
    const before = await snapshot(f.outside);
    await using server = await startServer({ workspace: f.workspace, env: POSIX_FD });
    const calls: [string, Record<string, unknown>][] = [
      ...["file-out", "chain-2", "dir-out/secret.txt", "rel-dir-out/secret.txt", "proc-root/secret.txt"]
        .map((p): [string, Record<string, unknown>] => ["read_file", { path: p }]),
      ["list_dir", { path: "dir-out" }],
      ["list_files", { path: "dir-out" }],
      ["search_text", { pattern: "SECRET", path: "dir-out" }],
      ["view_image", { path: "image-out.png" }],
      ["exec_command", { cmd: "cat secret.txt", workdir: "dir-out" }],
      ["apply_patch", { patch: patch("*** Add File: dir-out/planted.txt", "+x") }],
      ["apply_patch", { patch: patch("*** Add File: dangling-out", "+x") }],
      ["apply_patch", { patch: patch("*** Update File: file-out", "@@", `-${SECRET}`, "+pwned") }],
      ["apply_patch", { patch: patch("*** Delete File: dir-out/secret.txt") }],
    ];
    const failures: string[] = [];
    for (const [tool, args] of calls) {
      const result = await server.call(tool, args);
      const label = `${tool} ${JSON.stringify(args)}`;
      if (!result.isError) failures.push(`${label}: succeeded`);
      if ((JSON.stringify(result.structured) + result.text).includes(SECRET)) failures.push(`${label}: leaked`);
    }
    assertEquals(failures, []);
    assertEquals(outsideChanges(before, await snapshot(f.outside)), [], "the outside tree changed");
  } finally {
    await Deno.remove(f.base, { recursive: true });
  }
});

Deno.test("posix-fd server: read_file, list_dir, exec_command and apply_patch in a flipping race/ stay inside", async () => {
  const options = { env: POSIX_FD, calls: CALLS };
  assertEquals(await race((server) => server.call("read_file", { path: "race/secret.txt" }), options), []);
  assertEquals(await race((server) => server.call("list_dir", { path: "race" }), options), []);
  const cat = (server: TestServer) => server.call("exec_command", { cmd: "cat secret.txt", workdir: "race" });
  assertEquals(await race(cat, options), []);
  const update = (i: number) => patch("*** Update File: race/secret.txt", "@@", " inside", `+edit ${i}`);
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: update(i) }), options), []);
  const add = (i: number) => patch(`*** Add File: race/new-${i}.txt`, "+x");
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: add(i) }), options), []);
});
