import { assertEquals } from "../testing/assert.ts";
import type { Change } from "./change.ts";
import { FS_AT, type FsOps } from "./fs_ops.ts";
import { type PinnedDir, UndoJournal } from "./journal.ts";

const dir: PinnedDir = { rel: "src", fd: 7, dev: 1, ino: 2 };
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
    ...FS_AT,
    unlinkAt: (fd, name, directory) => run(`unlink ${fd}/${name}${directory ? " (dir)" : ""}`),
    renameAt: (fromFd, from, toFd, to) => run(`rename ${fromFd}/${from} ${toFd}/${to}`),
  };
  return { fs, calls };
}

Deno.test("a rollback removes the temp files first, then undoes the steps newest first", () => {
  const journal = new UndoJournal();
  journal.record({ kind: "mkdir", parent: { ...dir, rel: ".", fd: 3 }, name: "src", rel: "src" });
  journal.staged(change("src/a.txt"), dir, ".workcell-1.tmp");
  journal.staged(change("src/n.txt"), dir, ".workcell-2.tmp");
  journal.record({ kind: "backup", dir, name: "b.txt", backup: ".workcell-3.bak", rel: "src/b.txt" });
  journal.record({ kind: "create", dir, name: "n.txt", rel: "src/n.txt" });
  const { fs, calls } = recording();
  assertEquals(journal.rollback(fs), []);
  assertEquals(calls, [
    "unlink 7/.workcell-1.tmp",
    "unlink 7/.workcell-2.tmp",
    "unlink 7/n.txt",
    "rename 7/.workcell-3.bak 7/b.txt",
    "unlink 7/.workcell-3.bak",
    "unlink 3/src (dir)",
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
  assertEquals(calls, ["rename 7/.workcell-2.bak 7/a.txt", "unlink 7/.workcell-2.bak"]);
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
  assertEquals(calls, ["unlink 7/.workcell-1.tmp", "unlink 7/n.txt", "rename 7/.workcell-2.bak 7/b.txt"]);
});
