import { assertEquals } from "../../testing/assert.ts";
import type { Change } from "./change.ts";
import { type FsOps, HANDLE_OPS } from "./fs_ops.ts";
import { UndoJournal } from "./journal.ts";
import type { Handle } from "../workspace/handle.ts";

/** Stand-ins for pinned directories: the journal only passes them back to the file-system calls. */
const dir = { rel: "src" } as Handle;
const root = { rel: "." } as Handle;
const change = (rel: string): Change => ({ rel, before: null, after: { bytes: new Uint8Array(), mode: null } });

/** File-system calls that only record what a rollback asks for; `fail` names the calls that throw. */
function recording(fail: (call: string) => Error | null = () => null) {
  const calls: string[] = [];
  const run = (call: string) => {
    calls.push(call);
    const error = fail(call);
    if (error) throw error;
  };
  const fs: FsOps = {
    ...HANDLE_OPS,
    remove: (dir, name, directory) => run(`unlink ${dir.rel}/${name}${directory ? " (dir)" : ""}`),
    rename: (dir, from, to) => run(`rename ${dir.rel}/${from} ${dir.rel}/${to}`),
  };
  return { fs, calls };
}

Deno.test("a rollback removes the temp files first, then undoes the steps newest first", () => {
  const journal = new UndoJournal();
  journal.record({ kind: "mkdir", parent: root, name: "src", rel: "src" });
  journal.staged(change("src/a.txt"), dir, ".workcell-1.tmp");
  journal.staged(change("src/n.txt"), dir, ".workcell-2.tmp");
  journal.record({ kind: "backup", dir, name: "b.txt", backup: ".workcell-3.bak", rel: "src/b.txt" });
  journal.record({ kind: "create", dir, name: "n.txt", rel: "src/n.txt" });
  const { fs, calls } = recording();
  assertEquals(journal.rollback(fs), []);
  assertEquals(calls, [
    "unlink src/.workcell-1.tmp",
    "unlink src/.workcell-2.tmp",
    "unlink src/n.txt",
    "rename src/.workcell-3.bak src/b.txt",
    "unlink src/.workcell-3.bak",
    "unlink ./src (dir)",
  ]);
  calls.length = 0;
  assertEquals(journal.rollback(fs), [], "a journal is empty after its rollback");
  assertEquals(calls, []);
});

Deno.test("an installed temp file is no longer removed, and backups lists every backup link", () => {
  const journal = new UndoJournal();
  const a = change("src/a.txt");
  journal.staged(a, dir, ".workcell-1.tmp");
  assertEquals(journal.tempOf(a), ".workcell-1.tmp");
  journal.installed(a);
  assertEquals(journal.tempOf(a), undefined);
  journal.record({ kind: "backup", dir, name: "a.txt", backup: ".workcell-2.bak", rel: "src/a.txt" });
  assertEquals(journal.backups(), [{ dir, name: ".workcell-2.bak" }]);
  const { fs, calls } = recording();
  journal.rollback(fs);
  assertEquals(calls, ["rename src/.workcell-2.bak src/a.txt", "unlink src/.workcell-2.bak"]);
});

Deno.test("a rollback goes on past a failed step, treats a missing file as undone, and reports what it left", () => {
  const journal = new UndoJournal();
  journal.staged(change("src/a.txt"), dir, ".workcell-1.tmp");
  journal.record({ kind: "backup", dir, name: "b.txt", backup: ".workcell-2.bak", rel: "src/b.txt" });
  journal.record({ kind: "create", dir, name: "n.txt", rel: "src/n.txt" });
  const { fs, calls } = recording((call) =>
    call.startsWith("rename")
      ? new Error("EIO")
      : call.includes(".tmp")
      ? new Deno.errors.PermissionDenied("EACCES")
      : call.includes("n.txt")
      ? new Deno.errors.NotFound("ENOENT")
      : null
  );
  assertEquals(journal.rollback(fs), [
    "remove temp file src/.workcell-1.tmp: EACCES",
    "restore src/b.txt: EIO",
  ]);
  assertEquals(calls, ["unlink src/.workcell-1.tmp", "unlink src/n.txt", "rename src/.workcell-2.bak src/b.txt"]);
});
