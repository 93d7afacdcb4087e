import { rgPath } from "@vscode/ripgrep";
import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { ToolError } from "../errors.ts";
import { createCommandPolicy, SHELL } from "./command_policy.ts";
import { ChildSandboxes } from "./linux_spawners.ts";
import { type LandlockProbe, probeLandlock } from "./landlock_probe.ts";
import { createPrivateTmp } from "./private_tmp.ts";
import type { Mode } from "./modes.ts";
import { openWorkspace } from "../workspace/workspace.ts";

import { cString, libc, O } from "../os/libc.ts";
import { closeFd, reapKilled } from "../os/fd.ts";

const NO_LANDLOCK = { abi: null, reason: "simulated kernel without Landlock" };
const INHERITED = { PATH: "/usr/bin:/bin", HOME: "/root", GITHUB_TOKEN: "value" };

async function withPolicy(
  mode: Mode,
  landlock: LandlockProbe,
  fn: (policy: ReturnType<typeof createCommandPolicy>, root: string) => Promise<void>,
) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-policy-" }));
  const workspace = openWorkspace(root);
  const tmp = createPrivateTmp("/tmp");
  const children = new ChildSandboxes(workspace, {
    tmpdir: tmp.path,
    env: INHERITED,
    landlock,
    ripgrep: { path: rgPath, fd: null },
  });
  const policy = createCommandPolicy({ mode }, workspace, {
    children,
    tmpdir: tmp.path,
    tmpdirProblems: [],
    gitReadable: [],
    inheritedEnv: INHERITED,
  });
  try {
    await fn(policy, root);
  } finally {
    await tmp.remove();
    workspace[Symbol.dispose]();
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
  chdir: cwd, // planning never changes into it
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

Deno.test("createCommandPolicy: without Landlock commands still run, and the report says what is missing", async () => {
  await withPolicy("safe", NO_LANDLOCK, async (policy, root) => {
    const report = await policy.sandbox(new Set());
    assertEquals(report.landlock_abi, null);
    assert(report.missing.some((line) => line.includes("simulated kernel without Landlock")), report.missing.join());
    assert(!report.commands.layers.includes("landlock"), report.commands.layers.join());
    assertEquals(report.commands.writes, "anywhere");
    const plan = await policy.plan(request("true", root));
    const devNull = libc().open(cString("/dev/null"), O.RDWR | O.CLOEXEC, 0);
    try {
      const stdio = { stdin: devNull, stdout: devNull, stderr: devNull };
      await reapKilled(await plan.spawner({ argv: ["true"], env: plan.env, cwd: root, stdio }));
    } finally {
      closeFd(devNull);
    }
  });
});

Deno.test({
  name: "createCommandPolicy: the report per kind of child; a network grant lifts the network denial of commands",
  ignore: probeLandlock().abi === null,
  fn: async () => {
    await withPolicy("safe", probeLandlock(), async (policy, root) => {
      const report = await policy.sandbox(new Set());
      assertEquals(report.commands.network, "denied");
      assertEquals(report.commands.writes, [root, policy.tmpdir!]);
      assertEquals(report.commands.reads, "all but credential stores");
      assertEquals((await policy.sandbox(new Set(["network"]))).commands.network, "allowed");
      assertEquals([report.git.writes, report.git.network, report.git.capabilities_dropped], [[], "denied", true]);
      assert(Array.isArray(report.git.executes) && Array.isArray(report.ripgrep.executes));
      assertEquals(report.ripgrep.executes, [rgPath]);
    });
    await withPolicy("trusted", probeLandlock(), async (policy, root) => {
      const report = await policy.sandbox(new Set());
      assertEquals([report.commands.reads, report.commands.network, report.commands.read_only], [
        "anywhere",
        "allowed",
        [],
      ]);
      assertEquals(report.commands.writes, [root, policy.tmpdir!]);
    });
    await withPolicy("dangerous", probeLandlock(), async (policy) => {
      const report = await policy.sandbox(new Set());
      assertEquals([report.commands.enforced, report.git.enforced], [false, true]);
    });
  },
});
