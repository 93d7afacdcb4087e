import { assert, assertEquals } from "../../testing/assert.ts";
import { driverOverrides, fixedConfigArgs } from "./safety.ts";

Deno.test("driverOverrides blanks every program-valued driver key, whatever its subsection", () => {
  const env = driverOverrides([
    "user.name",
    "filter.lfs.clean",
    "filter.a.b=c.smudge",
    "filter.x.process",
    "filter.x.required",
    "diff.pdf.textconv",
    "diff.weird name.command",
    "diff.renames",
    "filter.lfs.clean",
  ]);
  assertEquals(env.GIT_CONFIG_COUNT, "6");
  const pairs = Array.from({ length: 6 }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]);
  assertEquals(pairs, [
    ["filter.lfs.clean", ""],
    ["filter.a.b=c.smudge", ""],
    ["filter.x.process", ""],
    ["filter.x.required", "false"],
    ["diff.pdf.textconv", ""],
    ["diff.weird name.command", ""],
  ]);
  assert(!Object.values(env).includes("user.name"));
});

Deno.test("fixed overrides include the pager, fsmonitor, external diff and network guards", () => {
  const args = fixedConfigArgs().join(" ");
  for (const want of ["core.pager=cat", "core.fsmonitor=false", "diff.external=", "protocol.allow=never"]) {
    assert(args.includes(want), want);
  }
});
