/**
 * `deno task package`: builds what a release ships beside the binaries, into dist/:
 * - `workcell-VERSION.tgz`: the npm package (`npm pack` of the staged tree);
 * - `workcell-VERSION.mcpb`: the MCP bundle for Claude Desktop (its manifest checked with `mcpb validate`, packed
 *   with `mcpb pack`);
 * - `server.json`: the MCP registry entry naming both, with the bundle's SHA-256, validated against the vendored
 *   2025-12-11 schema.
 * Both come from the build of the tree as it is (packaging/built_package.ts: made once per state of its inputs).
 * It prints each file's SHA-256, and fails (exit 1) if any step does.
 */
import * as path from "node:path";
import { builtPackage } from "../packaging/built_package.ts";
import { packBundle } from "../packaging/mcpb.ts";
import { serverJson, validateServerJson } from "../packaging/server_json.ts";
import { sha256Hex } from "../src/os/executable.ts";

const root = new URL("..", import.meta.url).pathname;
const dist = path.join(root, "dist");
const log = (message: string) => console.error(`package: ${message}`);

async function report(file: string): Promise<string> {
  const sha256 = await sha256Hex(await Deno.readFile(file));
  log(`wrote ${path.relative(root, file)} (sha256 ${sha256})`);
  return sha256;
}

await Deno.mkdir(dist, { recursive: true });
const built = await builtPackage();
const tarball = path.join(dist, path.basename(built.tarball));
await Deno.copyFile(built.tarball, tarball);
await report(tarball);
const bundle = await packBundle(built.bundle, dist);
const entry = serverJson({ sha256: await report(bundle) });
const problems = validateServerJson(entry);
if (problems.length > 0) {
  log(`server.json does not validate against the registry schema:\n  ${problems.join("\n  ")}`);
  Deno.exit(1);
}
const serverJsonFile = path.join(dist, "server.json");
await Deno.writeTextFile(serverJsonFile, JSON.stringify(entry, null, 2) + "\n");
await report(serverJsonFile);
