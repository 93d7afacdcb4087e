import { assert, assertEquals } from "../../testing/assert.ts";
import { choosePrivateTmp, createPrivateTmp, tmpParents } from "./private_tmp.ts";

Deno.test("tmpParents: $TMPDIR when absolute, then /tmp, then /dev/shm", () => {
  assertEquals(tmpParents({ TMPDIR: "/scratch" }), ["/scratch", "/tmp", "/dev/shm"]);
  assertEquals(tmpParents({ TMPDIR: "relative" }), ["/tmp", "/dev/shm"]);
  assertEquals(tmpParents({ TMPDIR: "/tmp" }), ["/tmp", "/dev/shm"]);
  assertEquals(tmpParents({}), ["/tmp", "/dev/shm"]);
});

Deno.test("choosePrivateTmp: an unusable parent is skipped and named; none usable is null, not a crash", async () => {
  const file = await Deno.makeTempFile();
  try {
    const { tmp, problems } = choosePrivateTmp(["/nonexistent/tmp", file, "/tmp"]);
    assert(tmp !== null && tmp.path.startsWith("/tmp/workcell-tmp-"), tmp?.path);
    assertEquals((await Deno.stat(tmp.path)).mode! & 0o777, 0o700);
    assertEquals(problems.length, 2);
    assert(problems[0].startsWith("/nonexistent/tmp: mkdtemp failed (errno 2"), problems[0]);
    assert(problems[1].startsWith(`${file}: mkdtemp failed (errno 20`), problems[1]);
    await tmp.remove();
    assertEquals(await Deno.stat(tmp.path).then(() => true, () => false), false);
    assertEquals(choosePrivateTmp(["/nonexistent/a", "/nonexistent/b"]).tmp, null);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("createPrivateTmp: a 0700 directory, removed with whatever it holds", async () => {
  const tmp = createPrivateTmp("/tmp");
  assertEquals((await Deno.stat(tmp.path)).mode! & 0o777, 0o700);
  await Deno.writeTextFile(`${tmp.path}/left-behind`, "x");
  await tmp.remove();
  assertEquals(await Deno.stat(tmp.path).then(() => true, () => false), false);
});
