/**
 * The MCP bundle (`.mcpb`) for Claude Desktop: a `node` bundle whose server
 * is the npm package installed with its pinned `deno` runtime, so it needs
 * nothing on the machine but the client's own Node. The manifest follows the
 * MCPB spec 0.3 with `user_config` for the workspace directory and the mode;
 * it is validated, and the bundle packed, by the official CLI
 * (`@anthropic-ai/mcpb`).
 *
 * Linux x86_64 only: the server is Linux only (docs/confinement.md), and the
 * bundled Deno is the platform package npm picked on the machine that built
 * the bundle (the release builds it on Linux x86_64).
 *
 * @example
 * await stageBundle("/tmp/staged", tarball);
 * const bundle = await packBundle("/tmp/staged", "/tmp/out"); // "/tmp/out/workcell-0.1.0.mcpb"
 */
import * as path from "node:path";
import { listedTools } from "../src/catalog_listing.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { MODES } from "../src/policy/modes.ts";
import {
  ICON_FILE,
  NPM_PACKAGE,
  REPOSITORY_URL,
  SERVER_DESCRIPTION,
  SERVER_TITLE,
  WEBSITE_URL,
} from "../src/metadata.ts";
import { SERVER_NAME, SERVER_VERSION } from "../src/version.ts";
import { BIN_PATH } from "./npm_package.ts";
import { ensureNpmTool, npm } from "../tasks/npm_tools.ts";

/** The MCPB CLI used to validate and pack. */
export const MCPB_CLI = { pkg: "@anthropic-ai/mcpb", version: "2.1.2" };
/** The manifest spec version written. */
export const MANIFEST_VERSION = "0.3";
/** Where, in the bundle, the npm package is installed. */
export const SERVER_DIR = "server";
/** The bundle's file name, as tasks/package.ts writes it and the release attaches it. */
export const BUNDLE_FILE = `${SERVER_NAME}-${SERVER_VERSION}.mcpb`;
/** The launcher inside the bundle. */
export const ENTRY_POINT = `${SERVER_DIR}/node_modules/${NPM_PACKAGE}/${BIN_PATH}`;

/** The bundle's manifest.json. */
export function bundleManifest(): Record<string, unknown> {
  return {
    manifest_version: MANIFEST_VERSION,
    name: SERVER_NAME,
    display_name: SERVER_TITLE,
    version: SERVER_VERSION,
    description: SERVER_DESCRIPTION,
    long_description: "Every path is confined to the workspace you choose; commands run under a permission mode " +
      "(safe by default: plain argv, gated, in a Landlock sandbox). Linux only. The server's npm dependencies are " +
      "inside the bundle: it starts offline, and writes nothing into its own directory.",
    author: { name: "The workcell authors", url: REPOSITORY_URL },
    repository: { type: "git", url: REPOSITORY_URL },
    homepage: WEBSITE_URL,
    documentation: WEBSITE_URL,
    support: `${REPOSITORY_URL}/issues`,
    icon: "icon.png",
    server: {
      type: "node",
      entry_point: ENTRY_POINT,
      mcp_config: {
        command: "node",
        args: [
          `\${__dirname}/${ENTRY_POINT}`,
          "--workspace",
          "${user_config.workspace}",
          "--mode",
          "${user_config.mode}",
        ],
      },
    },
    tools: listedTools({
      fakeReadonlyAnnotations: false,
      maxResultChars: DEFAULT_MAX_RESULT_CHARS,
      viewImageEnabled: true,
    })
      .map((tool) => ({ name: tool.name, description: tool.description })),
    tools_generated: false,
    keywords: ["coding", "files", "search", "patch", "commands", "git", "sandbox"],
    license: "MIT",
    compatibility: { platforms: ["linux"], runtimes: { node: ">=18.0.0" } },
    user_config: {
      workspace: {
        type: "directory",
        title: "Workspace",
        description: "The directory every tool is confined to.",
        required: true,
      },
      mode: {
        type: "string",
        title: "Command mode",
        description: `${MODES.join(", ")}. safe: commands run as plain argv, gated and sandboxed; trusted: through ` +
          "the shell, destructive and secret checks kept; dangerous: no gates, no sandbox (isolated VMs only).",
        default: "safe",
        required: false,
      },
    },
  };
}

/**
 * Writes the bundle's tree into `dir`: manifest.json, icon.png and the npm
 * package from `tarball` installed under server/ (its install script is
 * skipped: the launcher finds the platform's Deno itself, and the script
 * would only add a second copy of the binary).
 */
export async function stageBundle(dir: string, tarball: string): Promise<void> {
  const server = path.join(dir, SERVER_DIR);
  await Deno.mkdir(server, { recursive: true });
  await Deno.writeTextFile(path.join(dir, "manifest.json"), JSON.stringify(bundleManifest(), null, 2) + "\n");
  await Deno.copyFile(ICON_FILE, path.join(dir, "icon.png"));
  await npm(["install", "--prefix", server, "--omit=dev", "--ignore-scripts", tarball]);
  // npm's own records name the tarball where it was built; the bundle does not need them.
  for (const file of ["package.json", "package-lock.json", "node_modules/.package-lock.json"]) {
    await Deno.remove(path.join(server, file)).catch(() => {});
  }
}

/** Runs the MCPB CLI (installed on first use into .tools/mcpb); returns its output. */
export async function mcpb(args: string[]): Promise<{ ok: boolean; output: string }> {
  const dir = await ensureNpmTool("mcpb", MCPB_CLI.pkg, MCPB_CLI.version);
  const out = await new Deno.Command(path.join(dir, "node_modules", ".bin", "mcpb"), {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { ok: out.success, output: decode(out.stdout) + decode(out.stderr) };
}

/** Validates the manifest of the bundle staged in `staged` and packs it into `outDir`; returns the .mcpb path. */
export async function packBundle(staged: string, outDir: string): Promise<string> {
  const bundle = path.join(outDir, BUNDLE_FILE);
  for (const args of [["validate", path.join(staged, "manifest.json")], ["pack", staged, bundle]]) {
    const run = await mcpb(args);
    if (!run.ok) throw new Error(`mcpb ${args[0]} failed:\n${run.output}`);
  }
  return bundle;
}
