import { assertEquals } from "../testing/assert.ts";
import * as path from "node:path";
import { lockedPackages, packagedDenoConfig, platformPackages, TARGETS, unusedAtRunTime } from "./npm_dependencies.ts";

const ROOT = new URL("..", import.meta.url);

Deno.test("packagedDenoConfig: npm packages from DENO_DIR's cache, the lock frozen, the rest kept", () => {
  assertEquals(packagedDenoConfig({ nodeModulesDir: "auto", imports: { zod: "npm:zod@4" } }), {
    nodeModulesDir: "none",
    lock: { frozen: true },
    imports: { zod: "npm:zod@4" },
  });
});

Deno.test("lockedPackages: names (scoped too) and versions from deno.lock keys, peer suffixes dropped", () => {
  const lock = {
    npm: {
      "@modelcontextprotocol/sdk@1.32.2_zod@4.3.6": { integrity: "sha512-a" },
      "zod@4.3.6": { integrity: "sha512-b" },
      "@vscode/ripgrep-linux-arm64@1.18.0": { integrity: "sha512-c", os: ["linux"], cpu: ["arm64"] },
    },
  };
  assertEquals(lockedPackages(lock).map((pkg) => `${pkg.name} ${pkg.version} ${pkg.integrity}`), [
    "@modelcontextprotocol/sdk 1.32.2 sha512-a",
    "zod 4.3.6 sha512-b",
    "@vscode/ripgrep-linux-arm64 1.18.0 sha512-c",
  ]);
});

Deno.test("platformPackages: of the repository's lock, exactly ripgrep's two Linux binaries the package serves", async () => {
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
  assertEquals(platformPackages(lockedPackages(lock), TARGETS).map((pkg) => pkg.name).sort(), [
    "@vscode/ripgrep-linux-arm64",
    "@vscode/ripgrep-linux-x64",
  ]);
});

Deno.test("unusedAtRunTime: maps, declarations, TypeScript sources and docs go; code, data, wasm and licences stay", () => {
  const gone = ["index.js.map", "index.d.ts", "index.d.cts", "types.d.mts", "src/index.ts", "README.md", ".travis.yml"];
  const kept = ["index.js", "index.cjs", "index.mjs", "package.json", "jpeg.wasm", "LICENSE", "LICENSE.md", "license"];
  assertEquals(gone.map((name) => unusedAtRunTime(path.basename(name))), gone.map(() => true));
  assertEquals(kept.map(unusedAtRunTime), kept.map(() => false));
});
