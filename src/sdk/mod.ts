/**
 * Typed re-exports of the SDK's server side (client: ./client.ts). Its `./*` exports point types at a missing
 * `dist/esm/<path>.js.d.ts`, making plain imports `any`: each `@deno-types` names the real file (sdk_types_test.ts).
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
  ElicitRequestFormParams,
  ElicitResult,
  Implementation,
  JSONRPCMessage,
  ServerNotification,
  ServerRequest,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
