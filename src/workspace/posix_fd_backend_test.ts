/**
 * What the POSIX fd backend (macOS's) does that the Linux one does not: a
 * regular file looked at before it is opened, entries held by their stat
 * alone, and the patch commit's acts through pinned fds under the fastest
 * directory flips. The file tools through a server on this backend are
 * tests/posix_fd_backend_test.ts.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertThrows } from "../../testing/assert.ts";
import { startFlipper } from "../../testing/flipper.ts";
import { scale } from "../../testing/scale.ts";
import { ToolError } from "../errors.ts";
import type { Handle } from "./handle.ts";
import { POSIX_FD_BACKEND } from "./posix_fd_backend.ts";
import { openWorkspace } from "./workspace.ts";

const SECRET = "OUTSIDE-SECRET";

async function tree(): Promise<{ root: string; outside: string; [Symbol.asyncDispose](): Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-posix-fd-" }));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await Deno.mkdir(path.join(root, "race"), { recursive: true });
  await Deno.mkdir(outside);
  for (const name of ["a.txt", "b.txt", "victim.txt"]) await Deno.writeTextFile(path.join(outside, name), SECRET);
  return { root, outside, [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }) };
}

function codeOf(error: unknown): string {
  return error instanceof ToolError ? error.code : (error as Error).name;
}

// The flipper busy-waits a core for as long as the race runs: the suite runs a short race, deno task reliability a long one.
const ROUNDS = scale(1500, 3000);
const DONE = scale(20, 100);
const MAX_MS = scale(5_000, 20_000);

Deno.test("posix-fd: create, write, rename and remove through a directory flipping every 10 µs never touch outside", async () => {
  // A backend acting by path leaves empty files outside at this speed and can move an outside file in by a raced
  // rename; every act here is relative to the directory fd pinned at the open.
  await using t = await tree();
  using ws = openWorkspace(t.root, POSIX_FD_BACKEND);
  const outcomes = new Map<string, number>();
  {
    await using _flips = await startFlipper(path.join(t.root, "race"), t.outside, 10);
    // At least ROUNDS rounds, and on until DONE got through every act: on a loaded machine most opens meet the swap.
    const until = Date.now() + MAX_MS;
    for (let i = 0; i < ROUNDS || ((outcomes.get("done") ?? 0) < DONE && Date.now() < until); i++) {
      let outcome = "done";
      try {
        using dir: Handle = ws.open("race", { expect: "dir" });
        for (const name of ["a.txt", "victim.txt"]) {
          try {
            using file = dir.create(name, 0o644, false);
            file.writeAll(new TextEncoder().encode("inside"));
          } catch (error) {
            if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
          }
        }
        dir.rename("a.txt", "b.txt");
        dir.remove("victim.txt");
      } catch (error) {
        outcome = codeOf(error);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  }
  const summary = JSON.stringify([...outcomes]);
  assertEquals([...Deno.readDirSync(t.outside)].map((entry) => entry.name).sort(), ["a.txt", "b.txt", "victim.txt"]);
  for (const name of ["a.txt", "b.txt", "victim.txt"]) {
    assertEquals(await Deno.readTextFile(path.join(t.outside, name)), SECRET, `${name}: ${summary}`);
  }
  assert(outcomes.has("done"), summary);
});

Deno.test("posix-fd: a symlink or a FIFO is held by its stat, never opened: restat, isCurrent and fsync say what it is", async () => {
  await using t = await tree();
  await Deno.symlink(t.outside, path.join(t.root, "race", "link"));
  await new Deno.Command("mkfifo", { args: [path.join(t.root, "race", "fifo")] }).output();
  using ws = openWorkspace(t.root, POSIX_FD_BACKEND);
  using dir = ws.open("race", { expect: "dir" });
  for (const [name, kind] of [["link", "symlink"], ["fifo", "other"]] as const) {
    using entry = dir.openEntry(name, "any");
    assertEquals([entry.stat.kind, entry.restat().kind, entry.isCurrent()], [kind, kind, true], name);
    assertEquals(codeOf(await assertRejects(() => entry.sync())), "NOT_A_FILE", name);
    assertEquals(codeOf(await assertRejects(() => entry.readAll())), "NOT_A_FILE", name);
  }
  using link = dir.openEntry("link", "any");
  // Made while the first exists (a new inode), then renamed over it.
  await Deno.symlink(t.root, path.join(t.root, "race", "link2"));
  await Deno.rename(path.join(t.root, "race", "link2"), path.join(t.root, "race", "link"));
  assertEquals(link.isCurrent(), false, "another symlink at the name");
  assertEquals(codeOf(assertThrows(() => link.restat())), "INVALID_ARGUMENT");
});
