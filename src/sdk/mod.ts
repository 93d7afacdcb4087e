/**
 * Typed re-exports of the MCP SDK subpaths we use.
 *
 * Under `deno check` the SDK's `./*` exports map points types at
 * `dist/esm/<path>.js.d.ts`, which does not exist, so plain subpath imports
 * silently become `any`. Each `@deno-types` line names the real declaration
 * file; `sdk_types_test.ts` fails if that ever regresses.
 */

// @deno-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @deno-types="@modelcontextprotocol/sdk/server/index"
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @deno-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @deno-types="@modelcontextprotocol/sdk/client/index"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @deno-types="@modelcontextprotocol/sdk/client/stdio"
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @deno-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @deno-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  ElicitRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
// @deno-types="@modelcontextprotocol/sdk/types"
export type {
  CallToolResult,
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  ServerNotification,
  ServerRequest,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
