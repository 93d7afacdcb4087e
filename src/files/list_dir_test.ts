import { assert, assertEquals } from "../../testing/assert.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { memorySlot } from "../../testing/memory_slot.ts";
import type { Paged } from "../paging/cursor.ts";
import { type DirListing, type DirPosition, type KeptTree, keptTreeBytes, listDir } from "./list_dir.ts";
import { openWorkspace } from "../workspace/workspace.ts";
import { libc, O } from "../os/libc.ts";

/** A tree of nested directories, hidden entries and symlinks (one inside, one outside), in a fresh workspace. */
async function fixture() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-list-dir-" }));
  const root = `${base}/ws`;
  for (const dir of ["a/b/c", "a/d", "e", ".hidden/x", "z"]) await Deno.mkdir(`${root}/${dir}`, { recursive: true });
  const files = ["a/one.txt", "a/b/two.txt", "a/b/c/three.txt", "a/d/four.txt", "e/five.txt", ".hidden/x/six.txt"];
  for (const [i, file] of [...files, "a.txt", "z/last.txt", ".env"].entries()) {
    await Deno.writeTextFile(`${root}/${file}`, "x".repeat(i + 1));
  }
  await Deno.symlink("a/one.txt", `${root}/link_in`);
  await Deno.symlink(base, `${root}/link_out`);
  const ws = openWorkspace(root);
  return {
    root,
    ws,
    async [Symbol.asyncDispose]() {
      ws[Symbol.dispose]();
      await Deno.remove(base, { recursive: true });
    },
  };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

const encode = (position: DirPosition) => JSON.stringify(position);

function page(
  fx: Fixture,
  after: DirPosition | null,
  keep: SnapshotSlot<KeptTree> | null,
  includeHidden = false,
): Paged<DirListing> {
  return listDir(fx.ws, ".", {
    depth: 10,
    limit: 3,
    includeHidden,
    page: { after, encode, maxChars: 48_000 },
    keep,
  });
}

/** Every page's data and start, following next_cursor from the first page. */
function allPages(fx: Fixture, keep: SnapshotSlot<KeptTree> | null, includeHidden = false) {
  const pages: { data: DirListing; start: number }[] = [];
  let after: DirPosition | null = null;
  do {
    const { data, start } = page(fx, after, keep, includeHidden);
    pages.push({ data, start });
    after = data.next_cursor === null ? null : JSON.parse(data.next_cursor);
  } while (after !== null);
  return pages;
}

Deno.test("list_dir: pages read from the kept walk are the pages a new walk gives, hidden or not", async () => {
  await using fx = await fixture();
  for (const includeHidden of [false, true]) {
    const slot = memorySlot<KeptTree>();
    const walked = allPages(fx, null, includeHidden);
    const kept = allPages(fx, slot, includeHidden);
    assertEquals(kept, walked);
    assert(walked.length >= 4, `${walked.length} pages`);
    assertEquals([slot.puts, slot.reads], [1, walked.length - 1]);
    assertEquals(
      slot.kept!.entries.map((entry) => entry.rel),
      walked.flatMap((p) => p.data.entries.map((e) => e.path)),
    );
    const links = kept.flatMap((p) => p.data.entries).filter((entry) => entry.type === "symlink");
    assertEquals(links.map((link) => [link.path, link.target]), [["link_in", "a/one.txt"], ["link_out", null]]);
    assert(keptTreeBytes(slot.kept!) > 0);
  }
});

Deno.test("list_dir: an entry removed after the walk was kept is left out, as a new walk leaves it out", async () => {
  await using fx = await fixture();
  const slot = memorySlot<KeptTree>();
  const first = page(fx, null, slot);
  const after = JSON.parse(first.data.next_cursor!) as DirPosition;
  await Deno.remove(`${fx.root}/a/d/four.txt`);
  await Deno.writeTextFile(`${fx.root}/a/one.txt`, "longer now");
  const fromKept = page(fx, after, slot);
  const walkedAgain = page(fx, after, null);
  assertEquals(slot.reads, 1);
  assertEquals(fromKept.data.entries, walkedAgain.data.entries);
  assert(!fromKept.data.entries.some((entry) => entry.path === "a/d/four.txt"));
});

Deno.test("list_dir: a walk is not kept when one page holds it all, or when a name is not UTF-8", async () => {
  await using fx = await fixture();
  const slot = memorySlot<KeptTree>();
  listDir(fx.ws, "a/b", {
    depth: 10,
    limit: 100,
    includeHidden: false,
    page: { after: null, encode, maxChars: 48_000 },
    keep: slot,
  });
  assertEquals(slot.puts, 0);
  // A name that is not UTF-8, made through libc (Deno's file APIs take strings).
  const lossy = new Uint8Array([...new TextEncoder().encode(`${fx.root}/e/bad-`), 0xff, 0]);
  const fd = libc().open(lossy, O.WRONLY | O.CREAT | O.CLOEXEC, 0o644);
  assert(fd >= 0);
  libc().close(fd);
  const pages = allPages(fx, slot);
  assertEquals(slot.puts, 0);
  assertEquals(pages, allPages(fx, null));
  assert(pages.some((p) => p.data.entries.some((entry) => entry.name_lossy === true)));
});

Deno.test("list_dir: a directory swapped for a symlink to the outside between pages is never read through", async () => {
  await using fx = await fixture();
  const slot = memorySlot<KeptTree>();
  const first = page(fx, null, slot);
  assertEquals(first.data.entries.map((entry) => entry.path), ["a", "a/b", "a/b/c"]);
  await Deno.remove(`${fx.root}/e`, { recursive: true });
  await Deno.mkdir(`${fx.root}/../outside`);
  await Deno.writeTextFile(`${fx.root}/../outside/five.txt`, "outside, longer than the file it replaces");
  await Deno.symlink(`${fx.root}/../outside`, `${fx.root}/e`);
  let after: DirPosition | null = JSON.parse(first.data.next_cursor!);
  const rest = [];
  while (after !== null) {
    const { data } = page(fx, after, slot);
    rest.push(...data.entries);
    after = data.next_cursor === null ? null : JSON.parse(data.next_cursor);
  }
  assertEquals(slot.reads > 0, true);
  const swapped = rest.find((entry) => entry.path === "e")!;
  assertEquals([swapped.type, swapped.target], ["symlink", null]);
  assertEquals(rest.filter((entry) => entry.path.startsWith("e/")), []);
});
