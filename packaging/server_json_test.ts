import { assert, assertEquals } from "../testing/assert.ts";
import { parseArgs } from "../src/config.ts";
import { REGISTRY_NAME } from "../src/metadata.ts";
import { REGISTRY_SCHEMA_FILE, REGISTRY_SCHEMA_URL, serverJson, validateServerJson } from "./server_json.ts";
import { sha256Hex } from "../src/os/executable.ts";

/** The vendored schema, byte for byte as its source published it (packaging/registry/README.md). */
const VENDORED_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const SHA = "0".repeat(64);

Deno.test("server.json validates against the vendored 2025-12-11 registry schema", () => {
  assertEquals(validateServerJson(serverJson({ sha256: SHA })), []);
});

Deno.test("server.json: the schema check has teeth (a missing name, a long description, a bad hash)", () => {
  const entry = serverJson({ sha256: "not-a-hash" });
  delete entry.name;
  entry.description = "x".repeat(101);
  const problems = validateServerJson(entry);
  assert(problems.some((problem) => problem.includes("name")), problems.join("; "));
  assert(problems.some((problem) => problem.startsWith("/description")), problems.join("; "));
  assert(problems.some((problem) => problem.includes("/fileSha256")), problems.join("; "));
});

Deno.test("server.json: the vendored schema is the published one, and the entry names it", async () => {
  assertEquals(await sha256Hex(await Deno.readFile(REGISTRY_SCHEMA_FILE)), VENDORED_SHA256);
  assertEquals(JSON.parse(await Deno.readTextFile(REGISTRY_SCHEMA_FILE)).$id, REGISTRY_SCHEMA_URL);
  const entry = serverJson({ sha256: SHA });
  assertEquals([entry.$schema, entry.name], [REGISTRY_SCHEMA_URL, REGISTRY_NAME]);
});

Deno.test("server.json: the npm package's arguments are flags the server accepts", () => {
  const [npm] = serverJson({ sha256: SHA }).packages as { packageArguments: { name: string; choices?: string[] }[] }[];
  for (const arg of npm.packageArguments) {
    for (const value of arg.choices ?? ["/some/dir"]) {
      assertEquals(parseArgs([arg.name, value]).kind, "run", `${arg.name} ${value}`);
    }
  }
});
