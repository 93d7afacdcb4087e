/**
 * The same confinement for a server run by an ordinary user: the launcher
 * then enters a user namespace (identity-mapped) to make its mount namespace,
 * so the git dir is read-only to commands without any privilege, and
 * Landlock, seccomp and the credential rules hold as for root. Runs only
 * from a root test run (setpriv needs the privilege to drop to nobody); a
 * non-root run exercises this path with every other test anyway.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { commitAll, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { type CallResult, NOBODY, startServer, tempWorkspace, unprivileged } from "./harness.ts";
import { parseProbe } from "./sandbox_probe.ts";

/** Linux-only: it drops to another uid with util-linux setpriv and runs the Linux sandbox as that user. */
const LINUX_ONLY = Deno.build.os !== "linux";

Deno.test({
  name: "as nobody: git dir read-only in a user namespace, no network, no credentials; git tools and commands work",
  ignore: LINUX_ONLY || Deno.uid() !== 0,
  fn: async () => {
    const asNobody = await unprivileged();
    const ws = await tempWorkspace();
    const home = path.join(ws, "..", `${path.basename(ws)}-home`);
    try {
      await initRepo(ws);
      await writeFiles(ws, {
        "a.txt": "one\n",
        "probe.sh": [
          'try() { if eval "$2" 2>/dev/null; then echo "$1=ok"; else echo "$1=denied"; fi; }',
          "try hook 'echo x > .git/hooks/pre-commit'",
          "try config 'echo x >> .git/config'",
          "try workspace 'echo x > written.txt'",
          "try status 'git status --short >/dev/null'",
          `try credentials 'cat ${home}/.ssh/id_ed25519 >/dev/null'`,
          "try udp 'python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\"'",
          "try uid '[ \"$(id -u)\" = 65534 ]'",
          "",
        ].join("\n"),
      });
      await commitAll(ws, "one");
      await Deno.mkdir(path.join(home, ".ssh"), { recursive: true });
      await Deno.writeTextFile(path.join(home, ".ssh", "id_ed25519"), "KEY\n");
      const needles: Record<string, string> = { "locked/a/secret.txt": "needle root's\n" };
      for (const name of ["b", "c", "d", "e"]) needles[`found/${name}.txt`] = `needle ${name}\n`;
      for (const name of ["b", "c", "d"]) needles[`locked/${name}.txt`] = `needle ${name}\n`;
      await writeFiles(ws, needles);
      for (const dir of [ws, home]) {
        await new Deno.Command("chown", { args: ["-R", `${NOBODY}:${NOBODY}`, dir] }).output();
      }
      // Root's, and closed to everyone else: rg as nobody reports it and goes on.
      await new Deno.Command("chown", { args: ["-R", "0:0", path.join(ws, "locked", "a")] }).output();
      await Deno.chmod(path.join(ws, "locked", "a"), 0o700);
      await using server = await startServer({ workspace: ws, ...asNobody, env: { ...asNobody.env, HOME: home } });
      const report = (await server.call("check_exec_environment", {})).structured.sandbox;
      assertEquals(report.commands.layers, ["landlock", "seccomp", "mount namespace", "capabilities"], report.missing);
      const probe = await server.call("exec_command", { cmd: "bash probe.sh" });
      assertEquals(parseProbe(probe.structured.stdout), {
        hook: "denied",
        config: "denied",
        workspace: "ok",
        status: "ok",
        credentials: "denied",
        udp: "denied",
        uid: "ok",
      }, probe.text);
      const log = await server.call("git_log", {});
      assertEquals([log.isError, log.structured.commits.length], [false, 1], log.text);
      const search = await server.call("search_text", { pattern: "one" });
      assert(!search.isError && search.structured.matches.length === 1, search.text);
      // Paged as nobody: pages read from what a run read ahead equal new runs' (a tool that may write, kill_command,
      // drops what was kept); with a file nobody cannot read, no run is kept and every page warns.
      const pages = async (path: string, fresh: boolean) => {
        await server.call("kill_command", { command_id: "none" });
        const out: unknown[] = [];
        let cursor: string | null = null;
        do {
          if (fresh) await server.call("kill_command", { command_id: "none" });
          const args = { pattern: "needle", path, max_results: 1, ...(cursor === null ? {} : { cursor }) };
          const page: CallResult = await server.call("search_text", args);
          assert(!page.isError, page.text);
          out.push(page.structured);
          cursor = page.structured.next_cursor;
        } while (cursor !== null);
        return out;
      };
      const open = await pages("found", true);
      assertEquals([open.length, await pages("found", false)], [4, open]);
      const locked = await pages("locked", false);
      assertEquals(locked.length, 3);
      for (const page of locked) assert((page as { warnings: string[] }).warnings.length > 0, JSON.stringify(page));
    } finally {
      await Deno.remove(ws, { recursive: true });
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
