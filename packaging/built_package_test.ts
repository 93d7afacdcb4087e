import { assert, assertEquals } from "../testing/assert.ts";
import { inputDigest, packageInputs } from "./built_package.ts";

Deno.test("the build's inputs: what goes into the package and the code that builds it, never a test", async () => {
  const inputs = await packageInputs();
  for (const file of ["main.ts", "deno.json", "deno.lock", "README.md", "LICENSE", "packaging/npm/workcell.mjs"]) {
    assert(inputs.includes(file), file);
  }
  assert(inputs.includes("packaging/built_package.ts") && inputs.includes("src/serve.ts"));
  assertEquals(inputs.filter((file) => file.endsWith("_test.ts") || file.startsWith("testing/")), []);
  assertEquals(inputs, [...inputs].sort());
});

Deno.test("the build's digest follows every input: the same files give the same digest, one fewer another", async () => {
  const inputs = await packageInputs();
  assertEquals(await inputDigest(inputs), await inputDigest(inputs));
  assert(await inputDigest(inputs) !== await inputDigest(inputs.slice(1)));
});
