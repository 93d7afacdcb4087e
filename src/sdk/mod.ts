/**
 * Typed re-exports of the MCP SDK subpaths the server uses (the client side,
 * for tests and benchmarks, is ./client.ts: the server never loads it).
 *
 * Under `deno check` the SDK's `./*` exports map points types at
 * `dist/esm/<path>.js.d.ts`, which does not exist, so plain subpath imports
 * silently become `any`. Each `@deno-types` line names the real declaration
 * file; `sdk_types_test.ts` fails if that ever regresses.
 */

// @deno-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @deno-types="@modelcontextprotocol/sdk/shared/protocol"
export type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @deno-types="@modelcontextprotocol/sdk/server/index"
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @deno-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
// @deno-types="@modelcontextprotocol/sdk/types"
export type {
  CallToolResult,
  ClientCapabilities,
  Implementation,
  InitializeRequest,
  JSONRPCMessage,
  ServerNotification,
  ServerRequest,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
