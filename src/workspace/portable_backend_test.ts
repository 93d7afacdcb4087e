/**
 * Attacks on the portable backend, which acts by path and checks identities
 * around every act: swaps between the check and the open, put in place at a
 * chosen moment and raced many times over; `..` through symlinks; hard links
 * to outside files; FIFOs. The fd backend's answers are checked beside it
 * where they differ.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertThrows } from "../testing/assert.ts";
import { startFlipper } from "../testing/flipper.ts";
import { ToolError } from "../errors.ts";
import type { Handle } from "./handle.ts";
import { PORTABLE_BACKEND } from "./portable_backend.ts";
import { openWorkspace } from "./workspace.ts";
import { TEST_BACKENDS } from "../testing/backend.ts";

const BACKENDS = TEST_BACKENDS;
const SECRET = "OUTSIDE-SECRET";

/** A workspace with race/secret.txt (inside content) and race/sub/, beside an outside tree with the same names. */
async function tree(): Promise<{ root: string; outside: string; [Symbol.asyncDispose](): Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-portable-" }));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await Deno.mkdir(path.join(root, "race", "sub"), { recursive: true });
  await Deno.mkdir(path.join(outside, "sub"), { recursive: true });
  await Deno.writeTextFile(path.join(root, "race", "secret.txt"), "inside\n");
  await Deno.writeTextFile(path.join(outside, "secret.txt"), `${SECRET}\n`);
  await Deno.writeTextFile(path.join(outside, "outside-only.txt"), `${SECRET}\n`);
  return { root, outside, [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }) };
}

/** Swaps race/ for a symlink to the outside tree (keeping the directory as race-moved/). */
function swapRace(root: string, outside: string): void {
  Deno.renameSync(path.join(root, "race"), path.join(root, "race-moved"));
  Deno.symlinkSync(outside, path.join(root, "race"));
}

function codeOf(error: unknown): string {
  return error instanceof ToolError ? error.code : String(error);
}

Deno.test("portable: a directory swapped for a symlink between the open and the read is refused, unread", async () => {
  await using t = await tree();
  for (const backend of BACKENDS) {
    using ws = openWorkspace(t.root, backend);
    using file = ws.open("race/secret.txt", { expect: "file" }); // checked: an inside regular file
    swapRace(t.root, t.outside);
    const outsideAtime = Deno.lstatSync(path.join(t.outside, "secret.txt")).atime;
    if (backend !== PORTABLE_BACKEND) {
      // The fd holds the inside file: the read is of it, wherever the path now leads.
      assertEquals(new TextDecoder().decode(await file.readAll()), "inside\n");
    } else {
      // The path now leads to another object: the identity check refuses it before any byte is read.
      const error = await assertRejects(() => file.readAll());
      assertEquals(codeOf(error), "INVALID_ARGUMENT", String(error));
    }
    assertEquals(Deno.lstatSync(path.join(t.outside, "secret.txt")).atime, outsideAtime, backend.name);
    Deno.removeSync(path.join(t.root, "race"));
    Deno.renameSync(path.join(t.root, "race-moved"), path.join(t.root, "race"));
  }
});

Deno.test("portable: the identity check fires for a file replaced by another at its path, and a parent replaced", async () => {
  await using t = await tree();
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  {
    using file = ws.open("race/secret.txt", { expect: "file" });
    // Another inode renamed over the name (what an editor's save does): no longer the object checked.
    Deno.writeTextFileSync(path.join(t.root, "race", "new.txt"), "replaced\n");
    Deno.renameSync(path.join(t.root, "race", "new.txt"), path.join(t.root, "race", "secret.txt"));
    assertEquals(codeOf(await assertRejects(() => file.readAll())), "INVALID_ARGUMENT");
    assertEquals(file.isCurrent(), false);
  }
  {
    using file = ws.open("race/secret.txt", { expect: "file" });
    using dir = ws.open("race", { expect: "dir" });
    // A real directory with the same names put in race/'s place: every name matches, the identities do not.
    Deno.renameSync(path.join(t.root, "race"), path.join(t.root, "race-old"));
    Deno.mkdirSync(path.join(t.root, "race"));
    Deno.writeTextFileSync(path.join(t.root, "race", "secret.txt"), "inside\n");
    assertEquals(codeOf(await assertRejects(() => file.read(new Uint8Array(8), 0))), "INVALID_ARGUMENT");
    assertEquals(codeOf(assertThrows(() => dir.entries())), "INVALID_ARGUMENT");
    assertEquals(codeOf(assertThrows(() => dir.childCwd())), "INVALID_ARGUMENT");
    assertEquals(codeOf(assertThrows(() => dir.revalidate())), "PATH_OUTSIDE_WORKSPACE");
  }
});

/** One attempt at each act through race/; what came back. */
async function attempt(ws: ReturnType<typeof openWorkspace>): Promise<{ read: string; listed: string }> {
  const outcome = async (act: () => Promise<string> | string) => {
    try {
      return await act();
    } catch (error) {
      return codeOf(error);
    }
  };
  const read = await outcome(async () => {
    using file = ws.open("race/secret.txt", { expect: "file" });
    return new TextDecoder().decode(await file.readAll());
  });
  const listed = await outcome(() => {
    using dir: Handle = ws.open("race", { expect: "dir" });
    return dir.entries().map((entry) => new TextDecoder().decode(entry.name)).sort().join(",");
  });
  return { read, listed };
}

for (const phaseMicros of [1000, 100]) {
  Deno.test(`portable: a directory flipping to an outside symlink every ${phaseMicros} µs, 3,000 reads and listings: never outside content or names`, async () => {
    // Each phase outlasts the checks around one act (tens of µs), so every swap stays in place across one of
    // them. Faster flips can be missed: at 10 µs a phase, 1 listing in about 20,000 named an outside file (a swap
    // landed and was undone between two checks; docs/confinement.md).
    await using t = await tree();
    using ws = openWorkspace(t.root, PORTABLE_BACKEND);
    const seen = new Map<string, number>();
    {
      await using _flips = await startFlipper(path.join(t.root, "race"), t.outside, phaseMicros);
      // At least 3,000 rounds, and on until an inside answer came: on a loaded machine the flipper can be
      // descheduled with the swap in place for a whole run of 3,000 (CI saw one).
      const until = Date.now() + 20_000;
      const insideSeen = () => seen.has("read inside\n") && seen.has("list secret.txt,sub");
      for (let i = 0; i < 3000 || (!insideSeen() && Date.now() < until); i++) {
        const { read, listed } = await attempt(ws);
        for (const answer of [`read ${read}`, `list ${listed}`]) seen.set(answer, (seen.get(answer) ?? 0) + 1);
      }
    }
    const answers = [...seen.keys()];
    assert(!answers.some((answer) => answer.includes(SECRET) || answer.includes("outside-only")), answers.join(" | "));
    // Both phases were met: inside answers, and refusals where a swap was in place or came between the checks.
    assert(seen.has("read inside\n") && seen.has("list secret.txt,sub"), answers.join(" | "));
    assert(answers.some((answer) => /^(read|list) (PATH_OUTSIDE_WORKSPACE|INVALID_ARGUMENT)$/.test(answer)));
  });
}

Deno.test("portable: .. after a symlink is resolved lexically first: it never climbs from where the link leads", async () => {
  await using t = await tree();
  await Deno.mkdir(path.join(t.outside, "deep"));
  await Deno.symlink(path.join(t.outside, "deep"), path.join(t.root, "up"));
  await Deno.writeTextFile(path.join(t.root, "inside.txt"), "inside\n");
  for (const backend of BACKENDS) {
    using ws = openWorkspace(t.root, backend);
    // The kernel would take up/.. to outside/: the check drops "up/.." by spelling, so this names ws/secret.txt.
    assertEquals(codeOf(assertThrows(() => ws.open("up/../secret.txt", { expect: "file" }))), "NOT_FOUND");
    using inside = ws.open("up/../inside.txt", { expect: "file" });
    assertEquals(inside.rel, "inside.txt");
    assertEquals(
      codeOf(assertThrows(() => ws.open("up/../../outside/secret.txt", { expect: "file" }))),
      "PATH_OUTSIDE_WORKSPACE",
    );
    using top = ws.open(".", { expect: "dir" });
    assertThrows(() => top.openBeneath("race/../race", "dir")); // the walk below a handle never climbs at all
  }
});

Deno.test("portable: a hard link to an outside file is a name inside the workspace, read like any file (both backends)", async () => {
  await using t = await tree();
  const link = path.join(t.root, "hard.txt");
  try {
    await Deno.link(path.join(t.outside, "secret.txt"), link);
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return; // protected_hardlinks forbids it here
    throw error;
  }
  for (const backend of BACKENDS) {
    using ws = openWorkspace(t.root, backend);
    using file = ws.open("hard.txt", { expect: "file" });
    // Nothing tells a second name from the first: the inode is inside the workspace by this name, and whoever
    // could make the link could have copied the file (docs/confinement.md).
    assertEquals(new TextDecoder().decode(await file.readAll()), `${SECRET}\n`, backend.name);
  }
});

Deno.test("portable: a FIFO is refused before it is opened, also when renamed over a checked file; nothing hangs", async () => {
  await using t = await tree();
  const fifo = path.join(t.root, "race", "fifo");
  await new Deno.Command("mkfifo", { args: [fifo] }).output();
  for (const backend of BACKENDS) {
    using ws = openWorkspace(t.root, backend);
    assertEquals(codeOf(assertThrows(() => ws.open("race/fifo", { expect: "file" }))), "NOT_A_FILE");
    using any = ws.open("race/fifo", { expect: "any" });
    assertEquals(codeOf(await assertRejects(() => any.readAll())), "NOT_A_FILE");
  }
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  using file = ws.open("race/secret.txt", { expect: "file" });
  const spare = path.join(t.root, "race", "spare-fifo");
  await new Deno.Command("mkfifo", { args: [spare] }).output();
  Deno.renameSync(spare, path.join(t.root, "race", "secret.txt"));
  // The path is checked again right before the open: the FIFO is another object, refused without opening it.
  assertEquals(codeOf(await assertRejects(() => file.readAll())), "INVALID_ARGUMENT");
});

Deno.test("portable: a device outside reached through a symlink is refused by the check, never opened", async () => {
  await using t = await tree();
  await Deno.symlink("/dev/zero", path.join(t.root, "zero"));
  await Deno.symlink("/dev", path.join(t.root, "devices"));
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  assertEquals(codeOf(assertThrows(() => ws.open("zero", { expect: "file" }))), "PATH_OUTSIDE_WORKSPACE");
  assertEquals(codeOf(assertThrows(() => ws.open("devices/null", { expect: "any" }))), "PATH_OUTSIDE_WORKSPACE");
});

Deno.test("portable: removals in a directory flipping to an outside symlink never remove outside (a raced removal is put back)", async () => {
  // A removal (and the undo of a create found to have raced) renames the object it saw to be its own to a fresh
  // name and unlinks that name: a swap landing between the steps sends them to names the outside does not have.
  // Unlinking victim.txt by its own name lost the outside file in 7 runs of 8 at this speed.
  await using t = await tree();
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  const outsideVictim = path.join(t.outside, "victim.txt");
  await Deno.writeTextFile(outsideVictim, `${SECRET}\n`);
  const outcomes = new Map<string, number>();
  {
    await using _flips = await startFlipper(path.join(t.root, "race"), t.outside, 1000);
    // At least 3,000 rounds, and on until one removal got through (the flipper may stall with the swap in place).
    const until = Date.now() + 20_000;
    for (let i = 0; i < 3000 || (!outcomes.has("removed") && Date.now() < until); i++) {
      let outcome = "removed";
      try {
        using dir: Handle = ws.open("race", { expect: "dir" });
        try {
          dir.create("victim.txt", 0o644, false)[Symbol.dispose]();
        } catch (error) {
          // Left by an earlier turn (only the removal matters here), or the outside one seen through a swap.
          if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        }
        dir.remove("victim.txt");
      } catch (error) {
        outcome = error instanceof ToolError ? error.code : (error as Error).name;
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  }
  const summary = JSON.stringify([...outcomes]);
  assertEquals([...Deno.readDirSync(t.outside)].map((entry) => entry.name).sort(), [
    "outside-only.txt",
    "secret.txt",
    "sub",
    "victim.txt",
  ], summary);
  assertEquals(await Deno.readTextFile(outsideVictim), `${SECRET}\n`, summary);
  assert(outcomes.has("removed"), summary);
});

Deno.test("portable: a replaced file's mode comes from its creation, never from a chmod that follows a path", () => {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "workcell-portable-" }));
  try {
    // The umask, read without Deno.umask (which sets it to read it, racing the tests of other threads).
    Deno.openSync(path.join(base, "probe"), { write: true, createNew: true, mode: 0o777 }).close();
    const allowed = Deno.statSync(path.join(base, "probe")).mode! & 0o777;
    using root = PORTABLE_BACKEND.pinRoot(base);
    // Without fchmod, an exact mode is what the umask leaves of it (Deno's open keeps only the permission bits).
    for (const mode of [0o666, 0o640, 0o4751]) {
      using file = root.create(`f-${mode}`, mode, true);
      file.writeAll(new TextEncoder().encode("x"));
      assertEquals(Deno.statSync(path.join(base, `f-${mode}`)).mode! & 0o7777, mode & allowed, mode.toString(8));
    }
    assert(!("chmod" in root), "no chmod by path is left to call");
  } finally {
    Deno.removeSync(base, { recursive: true });
  }
});

Deno.test("portable: bytes written to a file found elsewhere than its path are taken back through its fd", async () => {
  await using t = await tree();
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  using dir: Handle = ws.open("race", { expect: "dir" });
  using file = dir.create("new.txt", 0o644, false);
  // As if the create had gone where a swap sent it: the file is outside and race/ leads there now.
  swapRace(t.root, t.outside);
  Deno.renameSync(path.join(t.root, "race-moved", "new.txt"), path.join(t.outside, "new.txt"));
  const error = assertThrows(() => file.writeAll(new TextEncoder().encode(SECRET)));
  assertEquals(codeOf(error), "INVALID_ARGUMENT");
  assertEquals(Deno.readTextFileSync(path.join(t.outside, "new.txt")), "", "nothing of the write stays outside");
});

Deno.test("portable: a directory swapped for a symlink to a FIFO is refused before its fsync opens it (no hang)", async () => {
  await using t = await tree();
  using ws = openWorkspace(t.root, PORTABLE_BACKEND);
  using dir: Handle = ws.open("race/sub", { expect: "dir" });
  const fifo = path.join(t.root, "race", "fifo");
  await new Deno.Command("mkfifo", { args: [fifo] }).output();
  Deno.renameSync(path.join(t.root, "race", "sub"), path.join(t.root, "race", "sub-moved"));
  Deno.symlinkSync(fifo, path.join(t.root, "race", "sub"));
  const started = performance.now();
  const error = await assertRejects(() => dir.sync());
  assertEquals(codeOf(error), "INVALID_ARGUMENT");
  assert(performance.now() - started < 1000);
});
