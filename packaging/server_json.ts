/**
 * The MCP registry entry, `server.json`, in the registry's 2025-12-11 schema:
 * name, description, version, repository, and two packages — the npm package
 * (run with `npx`) and the MCP bundle attached to the release, with its
 * SHA-256. It is written by tasks/package.ts next to the bundle (the hash is
 * only known once the bundle is built) and validated against the schema
 * vendored in packaging/registry/ (see its README for source and version).
 *
 * @example
 * const entry = serverJson({ sha256: "…" });
 * const problems = validateServerJson(entry); // [] when valid
 */
import { Ajv } from "ajv";
import formats from "ajv-formats";
import { NPM_PACKAGE, registryIdentity, REPOSITORY_URL } from "../src/metadata.ts";
import { MODES } from "../src/policy/modes.ts";
import { SERVER_VERSION } from "../src/version.ts";
import { BUNDLE_FILE } from "./mcpb.ts";

/** The registry schema version written and checked. */
export const REGISTRY_SCHEMA_VERSION = "2025-12-11";
/** Its canonical URL, which server.json names as `$schema`. */
export const REGISTRY_SCHEMA_URL =
  `https://static.modelcontextprotocol.io/schemas/${REGISTRY_SCHEMA_VERSION}/server.schema.json`;
/** The vendored copy of that schema. */
export const REGISTRY_SCHEMA_FILE: URL = new URL(
  `./registry/${REGISTRY_SCHEMA_VERSION}/server.schema.json`,
  import.meta.url,
);

/** Where the release of this version attaches the bundle. */
export const BUNDLE_URL = `${REPOSITORY_URL}/releases/download/v${SERVER_VERSION}/${BUNDLE_FILE}`;

/** The registry entry, given the SHA-256 of the bundle the release attaches. */
export function serverJson(bundle: { sha256: string }): Record<string, unknown> {
  return {
    $schema: REGISTRY_SCHEMA_URL,
    ...registryIdentity(),
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: NPM_PACKAGE,
        version: SERVER_VERSION,
        runtimeHint: "npx",
        transport: { type: "stdio" },
        packageArguments: [
          {
            type: "named",
            name: "--workspace",
            description: "The directory every tool is confined to",
            format: "filepath",
            isRequired: true,
          },
          {
            type: "named",
            name: "--mode",
            description: "Command policy: safe (gated, sandboxed), trusted (shell) or dangerous (no gates)",
            choices: [...MODES],
            default: "safe",
          },
        ],
      },
      {
        registryType: "mcpb",
        identifier: BUNDLE_URL,
        version: SERVER_VERSION,
        fileSha256: bundle.sha256,
        transport: { type: "stdio" },
      },
    ],
  };
}

let validator: ((value: unknown) => string[]) | undefined;

/** What is wrong with `value` as a server.json of the vendored schema (empty when it is valid). */
export function validateServerJson(value: unknown): string[] {
  if (!validator) {
    const schema = JSON.parse(Deno.readTextFileSync(REGISTRY_SCHEMA_FILE));
    // Not strict: the schema carries annotation keywords (`example`) that ajv does not know.
    const ajv = new Ajv({ strict: false, allErrors: true });
    formats.default(ajv);
    const validate = ajv.compile(schema);
    validator = (candidate) =>
      validate(candidate)
        ? []
        : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
  }
  return validator(value);
}
