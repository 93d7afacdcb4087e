/**
 * The answer to `initialize` without the MCP SDK, given before it loads (~100 ms of zod and ajv), matching its
 * `Server._oninitialize` (initialize_test.ts checks); plainInitialize never says yes where the SDK would say no.
 */
import { serverInfo } from "../metadata.ts";

/** The newest protocol version (the SDK's `LATEST_PROTOCOL_VERSION` of 1.32.2). */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/** Every version the server speaks, newest first (the SDK's `SUPPORTED_PROTOCOL_VERSIONS`). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** What the server declares at initialize. */
export const SERVER_CAPABILITIES = { tools: { listChanged: false } };

/**
 * The client's version when supported, else the latest (the client then decides whether to go on), as the SDK does.
 * @example
 * ```ts
 * negotiateProtocolVersion("1999-01-01"); // "2025-11-25"
 * ```
 */
export function negotiateProtocolVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * The initialize result for a client that asked for `requested`, with the key order the SDK gives it.
 * @example
 * ```ts
 * initializeResult("2025-06-18", "workcell gives you one workspace: /repo.").protocolVersion; // "2025-06-18"
 * ```
 */
export function initializeResult(requested: string, instructions: string) {
  return {
    protocolVersion: negotiateProtocolVersion(requested),
    capabilities: SERVER_CAPABILITIES,
    serverInfo: serverInfo(),
    instructions,
  };
}

type Json = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not an array). */
export const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);
/** Whether `value` has no keys but `keys`. */
export const onlyKeys = (value: Json, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));
const isOptional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const isString = (value: unknown) => typeof value === "string";
const isObject = (value: unknown) => value !== null && typeof value === "object";
const isBoolean = (value: unknown) => typeof value === "boolean";
const everyValue = (value: unknown, check: (value: unknown) => boolean) =>
  isRecord(value) && Object.values(value).every(check);

/** The SDK's IconSchema, closed (unknown keys are left to the SDK). */
function isIcon(value: unknown): boolean {
  return isRecord(value) && onlyKeys(value, ["src", "mimeType", "sizes", "theme"]) && isString(value.src) &&
    isOptional(value.mimeType, isString) &&
    isOptional(value.sizes, (sizes) => Array.isArray(sizes) && sizes.every(isString)) &&
    isOptional(value.theme, (theme) => theme === "light" || theme === "dark");
}

/** The SDK's ImplementationSchema (unknown keys it strips, so they may stay). */
function isImplementation(value: unknown): boolean {
  return isRecord(value) && isString(value.name) && isString(value.version) && isOptional(value.title, isString) &&
    isOptional(value.websiteUrl, isString) && isOptional(value.description, isString) &&
    isOptional(value.icons, (icons) => Array.isArray(icons) && icons.every(isIcon));
}

/** The SDK's ClientCapabilitiesSchema, narrowed: `tasks` and elicitation beyond `form`/`url` are left to the SDK. */
function isClientCapabilities(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { experimental, sampling, elicitation, roots, tasks, extensions } = value;
  return tasks === undefined &&
    isOptional(experimental, (entry) => everyValue(entry, isObject)) &&
    isOptional(extensions, (entry) => everyValue(entry, isObject)) &&
    isOptional(sampling, (entry) =>
      isRecord(entry) && isOptional(entry.context, isObject) &&
      isOptional(entry.tools, isObject)) &&
    isOptional(elicitation, (entry) =>
      isRecord(entry) && onlyKeys(entry, ["form", "url"]) &&
      isOptional(entry.form, (form) => isRecord(form) && isOptional(form.applyDefaults, isBoolean)) &&
      isOptional(entry.url, isObject)) &&
    isOptional(roots, (entry) => isRecord(entry) && isOptional(entry.listChanged, isBoolean));
}

/**
 * The id and params of a `method` request with JSON-RPC's keys only and an id the SDK accepts, else null.
 * @example
 * ```ts
 * plainRequest({ jsonrpc: "2.0", id: 2, method: "tools/list" }, "tools/list"); // { id: 2, params: undefined }
 * ```
 */
export function plainRequest(message: unknown, method: string): { id: string | number; params: unknown } | null {
  if (!isRecord(message) || !onlyKeys(message, ["jsonrpc", "id", "method", "params"])) return null;
  const { jsonrpc, id, params } = message;
  if (jsonrpc !== "2.0" || message.method !== method) return null;
  if (!(typeof id === "string" || Number.isSafeInteger(id))) return null;
  return { id: id as string | number, params };
}

/**
 * The id and version of an initialize request the SDK's schemas certainly accept (no `_meta`), else null.
 * @example
 * ```ts
 * plainInitialize({ jsonrpc: "2.0", id: 1, method: "initialize",
 *   params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
 * ```
 */
export function plainInitialize(message: unknown): { id: string | number; protocolVersion: string } | null {
  const request = plainRequest(message, "initialize");
  if (request === null) return null;
  const { id, params } = request;
  if (!isRecord(params) || params._meta !== undefined || !isString(params.protocolVersion)) return null;
  if (!isClientCapabilities(params.capabilities) || !isImplementation(params.clientInfo)) return null;
  return { id, protocolVersion: params.protocolVersion as string };
}

/**
 * The JSON-RPC response line the stdio transport would write for `result` (key order included).
 * @example
 * ```ts
 * await Deno.stdout.write(responseLine(2, { tools: [] }));
 * ```
 */
export function responseLine(id: string | number, result: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ result, jsonrpc: "2.0", id }) + "\n");
}
