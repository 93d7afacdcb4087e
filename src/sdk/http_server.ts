/** The SDK's Streamable HTTP server transport, typed (see mod.ts); its own module so stdio servers never load it. */

// @deno-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
