import { assert, assertEquals } from "../../testing/assert.ts";
import { hostKernelSandbox } from "./kernel_sandbox.ts";

const NO_LANDLOCK = { abi: null, reason: "Landlock is Linux-only (this is darwin)" };

Deno.test("hostKernelSandbox on darwin: Seatbelt through sandbox-exec, never Landlock", () => {
  const line = hostKernelSandbox(NO_LANDLOCK, ["git: not installed (git tools answer GIT_FAILED)"], "darwin");
  assertEquals(line.name, "Seatbelt");
  assertEquals(line.available, true);
  assertEquals(line.detail, "/usr/bin/sandbox-exec runs workcell's profiles (macOS has no Landlock)");
  assert(line.needed_by.endsWith("(missing now: git: not installed (git tools answer GIT_FAILED))"));
});

Deno.test("hostKernelSandbox on darwin: a refused sandbox-exec is reported with its reason and what it means", () => {
  const refusal = "seatbelt: /usr/bin/sandbox-exec cannot run: No such file or directory (os error 2)";
  const line = hostKernelSandbox(NO_LANDLOCK, [refusal], "darwin");
  assertEquals(line.available, false);
  assertEquals(line.detail, `${refusal}; commands, git and rg run unconfined (macOS has no Landlock)`);
  assert(line.needed_by.includes(refusal));
});

Deno.test("hostKernelSandbox on Linux: Landlock's ABI, or why it is missing", () => {
  assertEquals(hostKernelSandbox({ abi: 7, reason: null }, [], "linux"), {
    name: "Landlock",
    available: true,
    detail: "ABI 7",
    needed_by: "kernel confinement of commands (safe and trusted mode), git and rg",
  });
  const off = hostKernelSandbox(
    { abi: null, reason: "landlock_create_ruleset: ENOSYS" },
    ["landlock: ENOSYS"],
    "linux",
  );
  assertEquals([off.name, off.available, off.detail], ["Landlock", false, "landlock_create_ruleset: ENOSYS"]);
  assert(
    hostKernelSandbox({ abi: 7, reason: null }, ["seatbelt: x"], "linux").available,
    "a seatbelt line means nothing on Linux",
  );
});
