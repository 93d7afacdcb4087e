/** Typed re-exports of the MCP SDK client, for tests and benchmarks (`@deno-types`: see mod.ts). */

// @deno-types="@modelcontextprotocol/sdk/client/index"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @deno-types="@modelcontextprotocol/sdk/client/stdio"
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @deno-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
