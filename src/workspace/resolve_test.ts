import { assertEquals } from "../../testing/assert.ts";
import { implicitRefusal, launchWorkspace, pickRoot } from "./resolve.ts";

Deno.test("launchWorkspace: --workspace, then CLAUDE_PROJECT_DIR, else pending on the roots with the cwd behind them", () => {
  assertEquals(launchWorkspace({ flag: "app", projectDir: "/p", cwd: "/home/u" }), {
    kind: "fixed",
    choice: { dir: "/home/u/app", source: "flag" },
  });
  assertEquals(launchWorkspace({ flag: null, projectDir: "/p/x/..", cwd: "/" }), {
    kind: "fixed",
    choice: { dir: "/p", source: "env" },
  });
  for (const projectDir of [undefined, ""]) {
    assertEquals(launchWorkspace({ flag: null, projectDir, cwd: "/srv/" }), {
      kind: "pending",
      fallback: { dir: "/srv", source: "cwd" },
    });
  }
});

Deno.test("pickRoot: the first file:// root; the others listed; other schemes and bad URIs ignored with a reason", () => {
  assertEquals(
    pickRoot([
      { uri: "https://example.com/repo" },
      { uri: "file:///home/u/my%20app/" },
      { uri: "file:///home/u/lib", name: "lib" },
      { uri: "file:///home/u/my%20app" },
      { uri: "file://remote-host/share" },
    ]),
    {
      choice: { dir: "/home/u/my app", source: "roots" },
      others: ["/home/u/lib"],
      ignored: [
        { uri: "https://example.com/repo", reason: "The URL must be of scheme file" },
        { uri: "file://remote-host/share", reason: 'File URL host must be "localhost" or empty on linux' },
      ],
    },
  );
  assertEquals(pickRoot([]), { choice: null, others: [], ignored: [] });
});

Deno.test("implicitRefusal: / and the home directory only when --workspace names them", () => {
  for (const source of ["env", "roots", "cwd"] as const) {
    assertEquals(implicitRefusal({ real: "/", source, home: "/root" })?.includes("whole file system"), true);
    assertEquals(implicitRefusal({ real: "/root", source, home: "/root" })?.includes("home directory /root"), true);
    assertEquals(implicitRefusal({ real: "/root/app", source, home: "/root" }), null);
  }
  assertEquals(implicitRefusal({ real: "/", source: "flag", home: "/root" }), null);
  assertEquals(implicitRefusal({ real: "/root", source: "flag", home: "/root" }), null);
  assertEquals(implicitRefusal({ real: "/home", source: "cwd", home: null }), null);
});
