import { assertEquals } from "../testing/assert.ts";
import { needsRelaunch, relaunchTarget } from "./relaunch.ts";

Deno.test("needsRelaunch: only a compiled binary started outside its workspace relaunches", () => {
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u", workspace: "/home/u/proj" }), true);
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u/proj", workspace: "/home/u/proj" }), false);
  // Started inside a subdirectory: `.` would be narrower than the workspace, so it relaunches too.
  assertEquals(needsRelaunch({ standalone: true, cwd: "/home/u/proj/src", workspace: "/home/u/proj" }), true);
  assertEquals(needsRelaunch({ standalone: false, cwd: "/", workspace: "/home/u/proj" }), false);
});

Deno.test("relaunchTarget: --workspace, else CLAUDE_PROJECT_DIR; nothing when the client's roots will decide", () => {
  assertEquals(relaunchTarget(["--workspace", "app"], { CLAUDE_PROJECT_DIR: "/p" }, "/home/u"), "/home/u/app");
  assertEquals(relaunchTarget(["--mode", "trusted"], { CLAUDE_PROJECT_DIR: "/p" }, "/"), "/p");
  assertEquals(relaunchTarget([], {}, "/home/u"), null);
  assertEquals(relaunchTarget(["--bogus"], { CLAUDE_PROJECT_DIR: "/p" }, "/"), null);
  assertEquals(relaunchTarget(["--version"], { CLAUDE_PROJECT_DIR: "/p" }, "/"), null);
});
