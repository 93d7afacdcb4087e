/**
 * request_permissions through a real client: elicitation accepted, declined
 * and cancelled, no elicitation capability, the mode's ceiling, and what a
 * grant changes for the session's commands (gates and the sandbox).
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type ElicitAnswer, startServer } from "./harness.ts";
import { parseProbe, probeTargets } from "./sandbox_probe.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";

const ELICITATION = { elicitation: {} };
const HAS_NET_LANDLOCK = (probeLandlock().abi ?? 0) >= 4;

Deno.test("request_permissions: without elicitation nothing is granted (status unsupported)", async () => {
  await using server = await startServer();
  const result = await server.call("request_permissions", { permissions: ["network"], reason: "fetch deps" });
  assert(!result.isError, result.text);
  assertEquals([result.structured.status, result.structured.granted, result.structured.granted_permissions], [
    "unsupported",
    false,
    [],
  ]);
  assert(result.structured.guidance.includes("--mode trusted"));
  assertEquals((await server.call("server_info", {})).structured.policy.grants, []);
  assertEquals((await server.call("exec_command", { cmd: "curl x" })).structured.error.code, "COMMAND_BLOCKED");
});

Deno.test("request_permissions: an accepted network grant lifts the gate and the TCP sandbox rule, not the write rule", async () => {
  const asked: { message: string; requestedSchema: unknown }[] = [];
  await using server = await startServer({
    clientCapabilities: ELICITATION,
    onElicit: (request) => {
      asked.push(request);
      return { action: "accept", content: { network: true } };
    },
  });
  const result = await server.call("request_permissions", {
    permissions: ["network", "destructive"],
    reason: "npm install",
  });
  assertEquals(result.structured.status, "accepted");
  assertEquals(result.structured.granted_permissions, ["network"]);
  assertEquals(result.structured.refused_by_mode, ["destructive"]);
  assertEquals(asked.length, 1);
  assert(asked[0].message.includes("npm install"), asked[0].message);
  // Only what the mode can grant is asked for, unticked by default.
  assertEquals(Object.keys((asked[0].requestedSchema as { properties: object }).properties), ["network"]);
  const info = (await server.call("server_info", {})).structured.policy;
  assertEquals(info.grants, ["network"]);
  assert(!info.gates_in_force.includes("network"));
  // The network gate is lifted for this session…
  const curl = await server.call("exec_command", { cmd: "curl --version" });
  assert(!curl.isError, curl.text);
  // …and the sandbox lets TCP through, while writes outside stay denied.
  if (HAS_NET_LANDLOCK) {
    await using target = probeTargets();
    await Deno.writeTextFile(`${server.workspace}/probe.sh`, target.script);
    const probe = parseProbe((await server.call("exec_command", { cmd: "bash probe.sh" })).structured.stdout);
    assertEquals([probe.tcp, probe.etc, probe.home], ["ok", "denied", "denied"]);
    assertEquals((await server.call("check_exec_environment", {})).structured.sandbox.commands.network, "allowed");
  }
  // Asking again is not needed.
  const again = await server.call("request_permissions", { permissions: ["network"], reason: "again" });
  assertEquals([again.structured.status, again.structured.already_allowed], ["not_needed", ["network"]]);
  assertEquals(asked.length, 1);
});

Deno.test("request_permissions: declined, cancelled and unticked answers grant nothing", async () => {
  const answers: ElicitAnswer[] = [{ action: "decline" }, { action: "cancel" }, {
    action: "accept",
    content: { shell: false },
  }];
  await using server = await startServer({ clientCapabilities: ELICITATION, onElicit: () => answers.shift()! });
  for (const status of ["declined", "cancelled", "accepted"]) {
    const result = await server.call("request_permissions", { permissions: ["shell"], reason: "pipes" });
    assertEquals([result.structured.status, result.structured.granted], [status, false]);
  }
  assertEquals((await server.call("server_info", {})).structured.policy.grants, []);
  assertEquals(
    (await server.call("exec_command", { cmd: "ls | wc -l" })).structured.error.details.rule,
    "shell_syntax.operator",
  );
});

Deno.test("request_permissions: a shell grant in safe mode runs through /bin/sh with the other gates still in force", async () => {
  await using server = await startServer({
    clientCapabilities: ELICITATION,
    onElicit: () => ({ action: "accept", content: { shell: true } }),
  });
  await server.call("request_permissions", { permissions: ["shell"], reason: "pipes" });
  const piped = await server.call("exec_command", { cmd: "printf 'a\\nb\\n' | wc -l" });
  assertEquals(piped.structured.stdout.trim(), "2");
  assertEquals(
    (await server.call("exec_command", { cmd: "ls | curl x" })).structured.error.details.rule,
    "network.command",
  );
  assertEquals(
    (await server.call("exec_command", { cmd: "cat /etc/hostname | wc" })).structured.error.details.rule,
    "outside_path.argument",
  );
});

Deno.test("request_permissions: in trusted mode only destructive is grantable; the rest is already allowed", async () => {
  await using server = await startServer({
    args: ["--mode", "trusted"],
    clientCapabilities: ELICITATION,
    onElicit: () => ({ action: "accept", content: { destructive: true } }),
  });
  await server.call("exec_command", { cmd: "git init -q . && git commit -q --allow-empty -m x" });
  assertEquals(
    (await server.call("exec_command", { cmd: "git reset --hard" })).structured.error.details.rule,
    "destructive.git_discard",
  );
  const result = await server.call("request_permissions", {
    permissions: ["network", "shell", "destructive"],
    reason: "reset",
  });
  assertEquals([result.structured.status, result.structured.granted_permissions, result.structured.already_allowed], [
    "accepted",
    ["destructive"],
    ["network", "shell"],
  ]);
  const reset = await server.call("exec_command", { cmd: "git reset --hard" });
  assert(!reset.isError, reset.text);
  // The secret checks are never lifted.
  assertEquals(
    (await server.call("exec_command", { cmd: "LD_PRELOAD=x ls" })).structured.error.details.rule,
    "secret_env.inline",
  );
});
