/**
 * The same confinement for a server run by an ordinary user: the launcher
 * then enters a user namespace (identity-mapped) to make its mount namespace,
 * so the git dir is read-only to commands without any privilege, and
 * Landlock, seccomp and the credential rules hold as for root. Runs only
 * from a root test run (setpriv needs the privilege to drop to nobody); a
 * non-root run exercises this path with every other test anyway.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../src/testing/assert.ts";
import { commitAll, initRepo, writeFiles } from "../src/testing/git_fixtures.ts";
import { NOBODY, startServer, tempWorkspace, unprivileged } from "./harness.ts";
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
      for (const dir of [ws, home]) {
        await new Deno.Command("chown", { args: ["-R", `${NOBODY}:${NOBODY}`, dir] }).output();
      }
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
    } finally {
      await Deno.remove(ws, { recursive: true });
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});
