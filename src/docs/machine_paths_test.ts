import { assertEquals } from "../../testing/assert.ts";
import { checkoutEntries, machinePaths, machineRoots, type PathRoot, portablePaths } from "./machine_paths.ts";

const ROOTS: PathRoot[] = [
  { dir: "/home/me/workcell", as: "" },
  { dir: "/tmp", as: "$TMPDIR/" },
  { dir: "/home/me", as: "~/" },
];

Deno.test("portablePaths: checkout paths become relative, temp and home paths symbolic", () => {
  const table: [string, string][] = [
    [
      "Failed to find expected lines in /home/me/workcell/bench/.data/patch/ws/f.py:",
      "Failed to find expected lines in bench/.data/patch/ws/f.py:",
    ],
    ["workspace /tmp/workcell-bench-x1/src", "workspace $TMPDIR/workcell-bench-x1/src"],
    ["cache in /home/me/.cache/deno", "cache in ~/.cache/deno"],
    ["(/home/me/workcell)", "(.)"],
    ['{"path": "/tmp"}', '{"path": "$TMPDIR"}'],
    // Not at a path boundary: left alone.
    ["/tmpfoo/x and /var/tmp/y and /home/meadow", "/tmpfoo/x and /var/tmp/y and /home/meadow"],
    ["https://example.com/tmp/x", "https://example.com/tmp/x"],
  ];
  for (const [input, expected] of table) assertEquals(portablePaths(input, ROOTS), expected, input);
});

Deno.test("portablePaths: a sandbox root makes a peer's message read like the issue wants (ws/f.py)", () => {
  const sandbox: PathRoot[] = [{ dir: "/home/me/workcell/bench/.data/patch/scenarios", as: "" }];
  assertEquals(
    portablePaths("error: Failed in /home/me/workcell/bench/.data/patch/scenarios/ws/f.py", sandbox),
    "error: Failed in ws/f.py",
  );
});

Deno.test("machinePaths: finds paths under the roots and the checkout as another clone placed it", () => {
  const check = { roots: ROOTS, checkoutEntries: new Set(["bench/.data", "src/server.ts"]) };
  const text = [
    "a /home/me/workcell/docs/x.md b /tmp/ws-1/f c ~/x d /dev/null e /proc/self/fd/3",
    "f /work/main/bench/.data/patch/ws/f.py g /usr/src/linux h /opt/ci/clone/src/server.ts",
    "i /.well-known/mcp/server-card.json j /tmp",
  ].join("\n");
  assertEquals(machinePaths(text, check), [
    "/home/me/workcell/docs/x.md",
    "/tmp/ws-1/f",
    "/work/main/bench/.data/patch/ws/f.py",
    "/opt/ci/clone/src/server.ts",
  ]);
});

Deno.test("machineRoots: drops empty and root directories, longest first", () => {
  const env = new Map([["TMPDIR", "/"], ["HOME", ""]]);
  const roots = machineRoots("/nonexistent/checkout", { get: (name) => env.get(name) });
  assertEquals(roots, [{ dir: "/nonexistent/checkout", as: "" }]);
});

Deno.test("checkoutEntries: two levels of the checkout plus .gitignore entries with a slash", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/src/docs`, { recursive: true });
    await Deno.writeTextFile(`${dir}/src/a.ts`, "");
    await Deno.writeTextFile(`${dir}/.gitignore`, "node_modules/\nbench/.data/\n*.log\n");
    assertEquals([...await checkoutEntries(dir)].sort(), ["bench/.data", "src/a.ts", "src/docs"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
