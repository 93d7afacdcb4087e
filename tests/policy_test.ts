/**
 * The command gate end to end: every refused corpus command through
 * exec_command in safe and trusted mode, a sample of allowed ones run for
 * real, the child environment, and the private TMPDIR's life cycle.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, type TestServer } from "./harness.ts";
import { ALLOWED_IN_SAFE, REFUSED_IN_SAFE, TRUSTED_ONLY } from "../testing/gate_corpus.ts";

/** The files the corpus names. */
async function corpusFiles(workspace: string): Promise<void> {
  await Deno.mkdir(`${workspace}/src`);
  await Deno.writeTextFile(`${workspace}/src/a.ts`, "export const a = 1;\n");
  await Deno.symlink("/etc", `${workspace}/outlink`);
  await Deno.symlink("src", `${workspace}/inlink`);
}

async function refusedRule(server: TestServer, cmd: string, env?: Record<string, string>): Promise<string | null> {
  const result = await server.call("exec_command", { cmd, env, yield_time_ms: 5000 });
  if (!result.isError) return null;
  assertEquals(result.structured.error.code, "COMMAND_BLOCKED", result.text);
  return result.structured.error.details.rule;
}

Deno.test("policy e2e: safe mode refuses every refused corpus command with its rule, and never runs it", async () => {
  await using server = await startServer();
  await corpusFiles(server.workspace);
  const wrong: string[] = [];
  let refused = 0;
  for (const [cmd, rule, , env] of [...REFUSED_IN_SAFE, ...TRUSTED_ONLY]) {
    if (rule === null) continue;
    refused++;
    const got = await refusedRule(server, cmd, env);
    if (got !== rule) wrong.push(`${JSON.stringify(cmd)}: expected ${rule}, got ${got}`);
  }
  assertEquals(wrong, []);
  assert(refused >= 150);
});

Deno.test("policy e2e: a refusal names the rule, the token and how to proceed", async () => {
  await using server = await startServer();
  const result = await server.call("exec_command", { cmd: "curl https://example.com" });
  assert(result.isError);
  assertEquals(result.structured.error.details, {
    rule: "network.command",
    gate: "network",
    token: "curl",
    mode: "safe",
  });
  assert(result.structured.error.hint.includes("request_permissions"), result.structured.error.hint);
  assert(result.text.includes("COMMAND_BLOCKED") && result.text.includes("network.command"), result.text);
  assert(result.structured.error.hint.includes("the sandbox would refuse it too"), result.structured.error.hint);
});

Deno.test("policy e2e: allowed commands run as plain argv in safe mode (no shell)", async () => {
  await using server = await startServer();
  await corpusFiles(server.workspace);
  const run = async (cmd: string, env?: Record<string, string>) => {
    const result = await server.call("exec_command", { cmd, env });
    assert(!result.isError, `${cmd}: ${result.text}`);
    return result.structured;
  };
  // Shell metacharacters inside quotes reach the program literally: no shell saw them.
  assertEquals((await run("echo 'a | b ; c $HOME' \"*\"")).stdout, "a | b ; c $HOME *\n");
  assertEquals((await run("cat src/a.ts")).stdout, "export const a = 1;\n");
  assertEquals((await run("grep -c const inlink/a.ts")).stdout, "1\n");
  assert((await run("FOO=bar env")).stdout.includes("FOO=bar\n"));
  assert((await run("env", { BAZ: "1" })).stdout.includes("BAZ=1\n"));
  assertEquals((await run("rm -rf src")).exit_code, 0);
  // Every allowed corpus entry passes the gate (it may still fail to run: script.py does not exist here).
  for (const [cmd, rule, , env] of ALLOWED_IN_SAFE) {
    if (rule !== null) continue;
    // The gate answers before anything runs: no need to wait for the command.
    const result = await server.call("exec_command", { cmd, env, yield_time_ms: 0 });
    assert(!result.isError || result.structured.error.code !== "COMMAND_BLOCKED", `${cmd}: ${result.text}`);
    if (result.structured.status === "running") {
      await server.call("kill_command", { command_id: result.structured.command_id, signal: "KILL" });
    }
  }
});

Deno.test("policy e2e: trusted mode runs through the shell but keeps destructive and secret checks", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  await corpusFiles(server.workspace);
  const result = await server.call("exec_command", { cmd: 'echo $((1+2)) | cat && echo "$0"' });
  assert(!result.isError, result.text);
  assertEquals(result.structured.stdout, "3\n/bin/sh\n");
  const wrong: string[] = [];
  for (const [cmd, , rule, env] of [...REFUSED_IN_SAFE, ...TRUSTED_ONLY]) {
    if (rule === null) continue;
    const got = await refusedRule(server, cmd, env);
    if (got !== rule) wrong.push(`${JSON.stringify(cmd)}: expected ${rule}, got ${got}`);
  }
  assertEquals(wrong, []);
});

Deno.test("policy e2e: dangerous mode has no gates and says so", async () => {
  await using server = await startServer({ args: ["--mode", "dangerous"] });
  const env = await server.call("check_exec_environment", {});
  assertEquals(env.structured.gates, []);
  assertEquals(env.structured.sandbox.commands.enforced, false);
  assert(env.text.startsWith("DANGEROUS"), env.text);
  assert((await server.call("server_info", {})).text.includes("DANGEROUS"));
  assertEquals(
    (await server.call("exec_command", { cmd: "git reset --hard 2>/dev/null; echo ran" })).structured.stdout,
    "ran\n",
  );
});

Deno.test("policy e2e: secrets and loaders never reach children; stripped names (never values) are reported", async () => {
  await using server = await startServer({
    env: {
      AWS_SECRET_ACCESS_KEY: "value-aws-1234",
      GITHUB_TOKEN: "value-gh-5678",
      BASH_ENV: "/nonexistent",
      LANG: "C.UTF-8",
    },
  });
  const env = await server.call("check_exec_environment", {});
  for (const name of ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "BASH_ENV"]) {
    assert(env.structured.env.stripped.includes(name), name);
  }
  assert(!JSON.stringify(env.structured).includes("value-"), "a value leaked");
  assert(!env.text.includes("value-"), "a value leaked into the text");
  const tmpdir = env.structured.env.added.TMPDIR;
  const printed = (await server.call("exec_command", { cmd: "env" })).structured.stdout;
  assert(!printed.includes("value-") && !printed.includes("BASH_ENV"), printed);
  assert(printed.includes(`TMPDIR=${tmpdir}\n`), printed);
  // The private temp dir exists, is private, and is gone after shutdown.
  assertEquals((await Deno.stat(tmpdir)).mode! & 0o777, 0o700);
  await Deno.writeTextFile(`${server.workspace}/t.sh`, 'echo x > "$TMPDIR/made-by-child"\n');
  assertEquals((await server.call("exec_command", { cmd: "sh t.sh" })).structured.exit_code, 0);
  await server.close();
  for (let i = 0; i < 100 && await Deno.stat(tmpdir).then(() => true, () => false); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assertEquals(await Deno.stat(tmpdir).then(() => true, () => false), false);
});

Deno.test("policy e2e: trusted mode passes toolchain, proxy and CA variables and strips secrets and loaders", async () => {
  const passed = {
    JAVA_HOME: "/opt/jdk-21",
    HTTPS_PROXY: "http://proxy.corp:3128",
    NODE_EXTRA_CA_CERTS: "/etc/ssl/corp-ca.pem",
    VIRTUAL_ENV: "/home/u/.venv",
    GOPATH: "/home/u/go",
    CARGO_HOME: "/home/u/.cargo",
  };
  const stripped = {
    AWS_SECRET_ACCESS_KEY: "value-aws",
    GITHUB_TOKEN: "value-gh",
    OPENAI_API_KEY: "value-openai",
    LD_PRELOAD: "/nonexistent/value-preload.so",
  };
  await using server = await startServer({ args: ["--mode", "trusted"], env: { ...passed, ...stripped } });
  const printed = (await server.call("exec_command", { cmd: "env" })).structured.stdout as string;
  const childEnv = new Set(printed.split("\n"));
  for (const [name, value] of Object.entries(passed)) {
    assert(childEnv.has(`${name}=${value}`), `${name} reaches the child`);
  }
  for (const name of Object.keys(stripped)) assert(!printed.includes(`${name}=`), `${name} is stripped`);
  assert(!printed.includes("value-"), printed);
  const report = (await server.call("check_exec_environment", {})).structured.env;
  assertEquals(
    Object.fromEntries(Object.keys(stripped).map((name) => [name, report.stripped_by[name]])),
    {
      AWS_SECRET_ACCESS_KEY: "secret.name",
      GITHUB_TOKEN: "secret.name",
      OPENAI_API_KEY: "secret.name",
      LD_PRELOAD: "loader.dynamic_linker",
    },
  );
  for (const name of Object.keys(passed)) assert(!report.stripped.includes(name), name);
});
