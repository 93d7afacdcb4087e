import { assert, assertRejects } from "../testing/assert.ts";
import { assertStillConfined } from "./still_confined.ts";
import { confine, openWorkspace } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";

Deno.test("assertStillConfined: a directory swapped for a symlink after confine() is refused", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/sub`);
  const ws = await openWorkspace(root);
  const target = await confine(ws, "sub");
  await assertStillConfined(target);
  await Deno.remove(`${root}/sub`);
  await Deno.symlink(outside, `${root}/sub`);
  const error = await assertRejects(() => assertStillConfined(target));
  assert(error instanceof ToolError && error.code === "PATH_OUTSIDE_WORKSPACE");
  await Deno.remove(root, { recursive: true });
  await Deno.remove(outside, { recursive: true });
});
