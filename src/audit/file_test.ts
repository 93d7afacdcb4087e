import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { AuditFile, resolveLogPath, rotatedName } from "./file.ts";
import { AUDIT_LIMITS } from "./limits.ts";

const encoder = new TextEncoder();
const line = (writer: string, i: number, pad = 0) =>
  encoder.encode(JSON.stringify({ writer, i, pad: "x".repeat(pad) }) + "\n");

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-audit-file-" }));
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every line of the log and its rotated files, oldest file first. */
async function allLines(log: string): Promise<string[]> {
  const files = [...Array.from({ length: AUDIT_LIMITS.keptFiles }, (_, i) => rotatedName(log, i + 1)).reverse(), log];
  const lines: string[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(file).catch(() => "");
    lines.push(...text.split("\n").filter((entry) => entry !== ""));
  }
  return lines;
}

Deno.test("AuditFile: creates the log 0600 and appends whole lines", async () => {
  await withDir(async (dir) => {
    const log = path.join(dir, "audit.jsonl");
    const file = new AuditFile(log, 1 << 20);
    file.open();
    await file.append(line("a", 1));
    await file.append(line("a", 2));
    await file.close();
    assertEquals((await Deno.stat(log)).mode! & 0o777, 0o600);
    assertEquals((await allLines(log)).map((entry) => JSON.parse(entry).i), [1, 2]);
    // Closed files reopen on the next append, and append rather than truncate.
    await file.append(line("a", 3));
    await file.close();
    assertEquals((await allLines(log)).length, 3);
  });
});

Deno.test("AuditFile: rotates at the size limit and keeps exactly the fixed number of old files", async () => {
  await withDir(async (dir) => {
    const log = path.join(dir, "audit.jsonl");
    const max = 1000;
    const file = new AuditFile(log, max);
    for (let i = 0; i < 200; i++) await file.append(line("a", i, 100));
    await file.close();
    const names = (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
    assertEquals(names, [
      "audit.jsonl",
      ...Array.from({ length: AUDIT_LIMITS.keptFiles }, (_, i) => `audit.jsonl.${i + 1}`),
    ]);
    for (const name of names) assert((await Deno.stat(path.join(dir, name))).size <= max, name);
    // The newest lines survive, in order, with none missing in between.
    const kept = (await allLines(log)).map((entry) => JSON.parse(entry).i);
    assertEquals(kept, Array.from({ length: kept.length }, (_, k) => 200 - kept.length + k));
  });
});

Deno.test("AuditFile: two writers on one log (two processes' worth of fds) rotate without losing or tearing a line", async () => {
  await withDir(async (dir) => {
    const log = path.join(dir, "audit.jsonl");
    const a = new AuditFile(log, 20_000);
    const b = new AuditFile(log, 20_000);
    await Promise.all([
      (async () => {
        for (let i = 0; i < 300; i++) await a.append(line("a", i, 50));
      })(),
      (async () => {
        for (let i = 0; i < 300; i++) await b.append(line("b", i, 50));
      })(),
    ]);
    await Promise.all([a.close(), b.close()]);
    const events = (await allLines(log)).map((entry) => JSON.parse(entry));
    for (const writer of ["a", "b"]) {
      const seen = events.filter((event) => event.writer === writer).map((event) => event.i);
      assertEquals(seen, Array.from({ length: 300 }, (_, i) => i), writer);
    }
  });
});

Deno.test("AuditFile: a log deleted or moved away is followed by a new file under its name", async () => {
  await withDir(async (dir) => {
    const log = path.join(dir, "audit.jsonl");
    const file = new AuditFile(log, 1 << 20);
    await file.append(line("a", 1));
    await Deno.rename(log, `${log}.old`);
    await file.append(line("a", 2));
    await Deno.remove(log);
    await file.append(line("a", 3));
    await file.close();
    assertEquals((await Deno.readTextFile(log)).trim().split("\n").map((entry) => JSON.parse(entry).i), [3]);
  });
});

Deno.test("AuditFile: a missing directory, a directory, a symlink or a FIFO in the log's place is refused with why", async () => {
  await withDir(async (dir) => {
    assertEquals(resolveLogPath(path.join(dir, "x", "..", "audit.jsonl")), path.join(dir, "audit.jsonl"));
    const refusals: [string, new (message: string) => Error][] = [
      [path.join(dir, "nope", "audit.jsonl"), Deno.errors.NotFound],
      [path.join(dir, "adir"), Error],
      [path.join(dir, "link"), Deno.errors.FilesystemLoop],
      // Without a reader, opening a FIFO for writing would block the server: it fails at once instead.
      [path.join(dir, "fifo"), Error],
    ];
    await Deno.mkdir(path.join(dir, "adir"));
    await Deno.symlink("/etc/hostname", path.join(dir, "link"));
    await new Deno.Command("mkfifo", { args: [path.join(dir, "fifo")] }).output();
    for (const [file, kind] of refusals) {
      const error = await assertRejects(() => new AuditFile(file, 1 << 20).append(line("a", 1)));
      assert(error instanceof kind, `${file}: ${error}`);
    }
  });
});

Deno.test("AuditFile: a rotation that fails leaves no closed fd behind; the next append reopens and rotates", async () => {
  await withDir(async (dir) => {
    const log = path.join(dir, "audit.jsonl");
    const file = new AuditFile(log, 1000);
    await file.append(line("a", 1, 600));
    // FILE.4 cannot be renamed over a directory at FILE.5: the rotation throws part-way.
    await Deno.writeTextFile(rotatedName(log, 4), "");
    await Deno.mkdir(rotatedName(log, 5));
    await assertRejects(() => file.append(line("a", 2, 600)));
    // An unrelated file opened now may get the number of the fd the rotation closed.
    const otherPath = path.join(dir, "other.txt");
    using other = await Deno.open(otherPath, { write: true, create: true });
    await Deno.remove(rotatedName(log, 5));
    await file.append(line("a", 3, 600));
    await other.write(encoder.encode("mine\n"));
    await file.close();
    assertEquals(await Deno.readTextFile(otherPath), "mine\n");
    assertEquals((await allLines(log)).map((entry) => JSON.parse(entry).i), [1, 3]);
  });
});
