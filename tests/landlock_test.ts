/**
 * Landlock proofs through exec_command: a script inside the workspace, run
 * by a command every gate accepts (`bash probe.sh`), tries to write to
 * $HOME, /etc and /var/tmp and to connect to a loopback listener. The gate
 * cannot see any of that; only the sandbox can stop it. Tests run as root,
 * so file modes stop nothing: every denial below is Landlock's.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer } from "./harness.ts";
import { parseProbe, probeTargets } from "./sandbox_probe.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";

const { abi } = probeLandlock();
const HAS_LANDLOCK = abi !== null && abi >= 4;

const CONFINED = {
  workspace: "ok",
  tmpdir: "ok",
  home: "denied",
  etc: "denied",
  var_tmp: "denied",
  mkdir_outside: "denied",
  grandchild_etc: "denied",
  dev_null: "ok",
};

async function probe(mode: string, tty: boolean) {
  await using server = await startServer({ args: ["--mode", mode] });
  await using target = probeTargets();
  await Deno.writeTextFile(`${server.workspace}/probe.sh`, target.script);
  const result = await server.call("exec_command", { cmd: "bash probe.sh", tty, yield_time_ms: 20000 });
  assert(!result.isError, result.text);
  assertEquals(result.structured.status, "exited");
  // The server itself is unaffected: its own tools keep working afterwards.
  assert(!(await server.call("server_info", {})).isError);
  return parseProbe(result.structured.stdout.replaceAll("\r", ""));
}

Deno.test({
  name: "landlock: in safe mode a workspace script cannot write outside nor connect over TCP (pipes)",
  ignore: !HAS_LANDLOCK,
  fn: async () => assertEquals(await probe("safe", false), { ...CONFINED, tcp: "denied" }),
});

Deno.test({
  name: "landlock: in safe mode the PTY path is confined the same way",
  ignore: !HAS_LANDLOCK,
  fn: async () => assertEquals(await probe("safe", true), { ...CONFINED, tcp: "denied" }),
});

Deno.test({
  name: "landlock: in trusted mode writes stay confined, local TCP is allowed",
  ignore: !HAS_LANDLOCK,
  fn: async () => assertEquals(await probe("trusted", false), { ...CONFINED, tcp: "ok" }),
});

Deno.test("landlock: in dangerous mode everything succeeds (no sandbox)", async () => {
  const result = await probe("dangerous", false);
  assert(Object.values(result).every((value) => value === "ok"), JSON.stringify(result));
  assertEquals(Object.keys(result).length, 9);
});

Deno.test({
  name: "landlock: check_exec_environment and server_info report the enforced sandbox",
  ignore: !HAS_LANDLOCK,
  fn: async () => {
    await using server = await startServer();
    const env = (await server.call("check_exec_environment", {})).structured;
    const { sandbox } = env;
    assertEquals([sandbox.landlock_abi, sandbox.missing], [abi, []]);
    assertEquals(sandbox.commands.layers, ["landlock", "seccomp", "capabilities"]);
    assertEquals([sandbox.commands.network, sandbox.commands.signals_scoped], ["denied", abi! >= 6]);
    assertEquals(sandbox.commands.writes, [server.workspace, env.env.added.TMPDIR]);
    assertEquals(sandbox.commands.reads, "all but credential stores");
    assertEquals([sandbox.git.writes, sandbox.git.network], [[], "denied"]);
    assertEquals([sandbox.ripgrep.writes, sandbox.ripgrep.reads[0]], [[], server.workspace]);
    const info = (await server.call("server_info", {})).structured;
    assertEquals([info.policy.landlock, info.runtime.landlock.enforced], [true, true]);
  },
});

Deno.test({
  name: "landlock: a command cannot kill the server (any of its threads) nor another command",
  ignore: abi === null || abi < 6,
  fn: async () => {
    await using server = await startServer();
    await Deno.writeTextFile(
      `${server.workspace}/kill.sh`,
      'n=0; for t in /proc/$PPID/task/*; do kill -9 "${t##*/}" 2>/dev/null && n=$((n+1)); done; echo "killed=$n"\n',
    );
    const env = (await server.call("check_exec_environment", {})).structured;
    assertEquals(env.sandbox.commands.signals_scoped, true);
    const result = await server.call("exec_command", { cmd: "bash kill.sh" });
    assertEquals(result.structured.stdout, "killed=0\n");
    const sibling = await server.call("exec_command", { cmd: "sleep 31", yield_time_ms: 100 });
    assertEquals(sibling.structured.status, "running");
    await Deno.writeTextFile(
      `${server.workspace}/kill_sibling.sh`,
      'if kill -9 "$(pgrep -f "^sleep 31")" 2>/dev/null; then echo killed; else echo refused; fi\n',
    );
    assertEquals((await server.call("exec_command", { cmd: "bash kill_sibling.sh" })).structured.stdout, "refused\n");
    const poll = await server.call("write_stdin", { command_id: sibling.structured.command_id, yield_time_ms: 100 });
    assertEquals(poll.structured.status, "running");
    await server.call("kill_command", { command_id: sibling.structured.command_id, signal: "KILL" });
    assert(!(await server.call("server_info", {})).isError, "the server died");
  },
});
