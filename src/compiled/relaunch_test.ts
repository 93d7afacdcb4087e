import { assertEquals } from "../../tests/assert.ts";
import { needsRelaunch } from "./relaunch.ts";

Deno.test("needsRelaunch: only a compiled binary started outside its workspace relaunches", () => {
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u", workspace: "/home/u/proj" }), true);
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u/proj", workspace: "/home/u/proj" }), false);
  // Started inside a subdirectory: `.` would be narrower than the workspace, so it relaunches too.
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u/proj/src", workspace: "/home/u/proj" }), true);
  assertEquals(needsRelaunch({ standalone: false, cwd: "/", workspace: "/home/u/proj" }), false);
});
