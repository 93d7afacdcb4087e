import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

/** Permissions an agent may ask the user for. */
export const PERMISSION_NAMES = ["network", "shell", "outside_read", "destructive"] as const;

export const requestPermissionsTool = defineTool({
  name: "request_permissions",
  title: "Request permissions",
  description:
    "Ask the user (through MCP elicitation) to grant session-scoped permissions, capped by the server's mode. Never grants silently; without elicitation support it answers status unsupported.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z.strictObject({
    permissions: z.array(z.enum(PERMISSION_NAMES)).min(1).max(PERMISSION_NAMES.length).describe(
      "What to ask for.",
    ),
    reason: z.string().min(1).max(2000).describe("Why, shown to the user."),
  }),
  output: z.object({
    status: z.enum(["accepted", "declined", "cancelled", "unsupported"]),
    granted: z.boolean(),
    granted_permissions: z.array(z.string()),
    refused_by_mode: z.array(z.string()),
    guidance: z.string(),
  }),
  handler: () => notImplemented("request_permissions"),
});
