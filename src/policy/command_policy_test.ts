import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { ToolError } from "../errors.ts";
import { directSpawner } from "../exec/spawn.ts";
import { createCommandPolicy, SHELL } from "./command_policy.ts";
import { probeLandlock } from "./landlock_probe.ts";
import type { Mode } from "../config.ts";
import { openWorkspace } from "../workspace/confine.ts";

const NO_LANDLOCK = { abi: null, reason: "simulated kernel without Landlock" };
const INHERITED = { PATH: "/usr/bin:/bin", HOME: "/root", GITHUB_TOKEN: "value" };

async function withPolicy(
  mode: Mode,
  landlock: { abi: number | null; reason: string | null },
  fn: (policy: Awaited<ReturnType<typeof createCommandPolicy>>, root: string) => Promise<void>,
) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-policy-" }));
  const policy = await createCommandPolicy({ mode }, await openWorkspace(root), { landlock, inheritedEnv: INHERITED });
  try {
    await fn(policy, root);
  } finally {
    await policy.close();
    await Deno.remove(root, { recursive: true });
  }
}

const request = (
  cmd: string,
  cwd: string,
  extra: Partial<{ env: Record<string, string>; grants: Set<string> }> = {},
) => ({
  cmd,
  cwd,
  cwdFd: -1, // planning never opens it
  env: extra.env ?? {},
  tty: false,
  grants: extra.grants ?? new Set<string>(),
});

Deno.test("createCommandPolicy: safe plans an argv, trusted and dangerous a shell; env is filtered", async () => {
  await withPolicy("safe", NO_LANDLOCK, async (policy, root) => {
    const plan = await policy.plan(request("FOO=1 git status --short", root, { env: { BAR: "2" } }));
    assertEquals(plan.argv, ["git", "status", "--short"]);
    assertEquals(plan.env, { PATH: "/usr/bin:/bin", HOME: "/root", TMPDIR: policy.tmpdir!, FOO: "1", BAR: "2" });
    assertEquals(policy.environment.stripped, ["GITHUB_TOKEN"]);
    // With a shell grant the same mode hands the line to the shell.
    assertEquals((await policy.plan(request("ls | wc -l", root, { grants: new Set(["shell"]) }))).argv, [
      SHELL,
      "-c",
      "ls | wc -l",
    ]);
  });
  for (const mode of ["trusted", "dangerous"] as const) {
    await withPolicy(mode, NO_LANDLOCK, async (policy, root) => {
      assertEquals((await policy.plan(request("ls | wc -l", root))).argv, [SHELL, "-c", "ls | wc -l"]);
      assertEquals(policy.environment.stripped.length, mode === "dangerous" ? 0 : 1);
    });
  }
});

Deno.test("createCommandPolicy: a refusal is COMMAND_BLOCKED with rule, token and hint", async () => {
  await withPolicy("safe", NO_LANDLOCK, async (policy, root) => {
    const error = await assertRejects(() => policy.plan(request("ls $HOME", root)));
    assert(error instanceof ToolError);
    assertEquals(error.code, "COMMAND_BLOCKED");
    assertEquals(error.details, { rule: "shell_syntax.expansion", gate: "shell_syntax", token: "$HOME", mode: "safe" });
    assert(error.hint.includes("--mode trusted"));
  });
});

Deno.test("createCommandPolicy: without Landlock it keeps running, spawns directly and says why", async () => {
  await withPolicy("safe", NO_LANDLOCK, async (policy, root) => {
    const status = await policy.sandboxStatus(new Set());
    assertEquals([status.supported, status.enforced, status.network_restricted], [false, false, false]);
    assert(status.reason!.includes("simulated kernel without Landlock"), status.reason!);
    assertEquals((await policy.plan(request("true", root))).spawner, directSpawner);
  });
});

Deno.test({
  name: "createCommandPolicy: with Landlock, safe spawns from the sandbox; a network grant gets the TCP-open sandbox",
  ignore: probeLandlock().abi === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await withPolicy("safe", probeLandlock(), async (policy, root) => {
      const denied = await policy.plan(request("true", root));
      const open = await policy.plan(request("true", root, { grants: new Set(["network"]) }));
      assert(denied.spawner !== directSpawner && open.spawner !== directSpawner && denied.spawner !== open.spawner);
      assertEquals((await policy.sandboxStatus(new Set())).network_restricted, true);
      assertEquals((await policy.sandboxStatus(new Set(["network"]))).network_restricted, false);
    });
    await withPolicy("dangerous", probeLandlock(), async (policy, root) => {
      assertEquals((await policy.plan(request("true", root))).spawner, directSpawner);
      assertEquals((await policy.sandboxStatus(new Set())).enforced, false);
    });
  },
});

Deno.test("createCommandPolicy: the private TMPDIR is 0700 and removed by close()", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const policy = await createCommandPolicy({ mode: "trusted" }, await openWorkspace(root), {
    landlock: NO_LANDLOCK,
    inheritedEnv: {},
  });
  const tmpdir = policy.tmpdir!;
  assertEquals((await Deno.stat(tmpdir)).mode! & 0o777, 0o700);
  await Deno.writeTextFile(`${tmpdir}/left-behind`, "x");
  await policy.close();
  assertEquals(await Deno.stat(tmpdir).then(() => true, () => false), false);
  await Deno.remove(root);
});
