/**
 * The memory floor of this runtime for an MCP server (issue 31): a bare Deno
 * process with the MCP SDK's Server over stdio, answering initialize and an
 * empty tools/list, and nothing else. bench/npm_bench.ts measures its idle
 * RSS beside the real server's, in the same run.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
await server.connect(new StdioServerTransport());
