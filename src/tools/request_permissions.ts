import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { allowedByMode, MODE_POLICIES, type Permission, PERMISSION_LIFTS, PERMISSION_NAMES } from "../policy/modes.ts";

/** What each permission means to the user who is asked (shown in the elicitation form). */
const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  network: "Let commands use the network (network clients, package installs; TCP is allowed by the sandbox).",
  shell: "Run commands through /bin/sh: pipes, redirects, expansions, heredocs and builtins (cd, export, …); " +
    "without it each command is one program and its arguments.",
  outside_read: "Let command arguments name paths outside the workspace (writes there stay blocked by Landlock).",
  destructive: "Allow destructive commands such as git reset --hard, git clean, rm -rf inside the workspace.",
  git_write: "Let commands write the workspace's git dirs (git commit, git checkout); a command could then also " +
    "plant hooks or config that your own git runs later.",
};

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
    status: z.enum(["accepted", "declined", "cancelled", "unsupported", "not_needed"]),
    granted: z.boolean().describe("Whether this call granted anything new."),
    granted_permissions: z.array(z.string()).describe("Permissions granted by this call."),
    already_allowed: z.array(z.string()).describe("Requested permissions the mode or an earlier grant already allows."),
    refused_by_mode: z.array(z.string()).describe("Requested permissions above this mode's ceiling."),
    session_grants: z.array(z.string()),
    guidance: z.string(),
  }),
  handler: async (args, ctx) => {
    const mode = ctx.config.mode;
    const grantable = MODE_POLICIES[mode].grantable;
    const grants = ctx.sessionState.grants;
    const requested = [...new Set(args.permissions)];
    const alreadyAllowed = requested.filter((p) => allowedByMode(mode, p) || grants.has(p));
    const refusedByMode = requested.filter((p) => !alreadyAllowed.includes(p) && !grantable.includes(p));
    const askable = requested.filter((p) => !alreadyAllowed.includes(p) && grantable.includes(p));
    const result = (status: string, granted: Permission[], guidance: string) => {
      for (const permission of granted) grants.add(permission);
      const data = {
        status: status as "accepted" | "declined" | "cancelled" | "unsupported" | "not_needed",
        granted: granted.length > 0,
        granted_permissions: granted,
        already_allowed: alreadyAllowed,
        refused_by_mode: refusedByMode,
        session_grants: [...grants].sort(),
        guidance,
      };
      const lines = [
        `${status}: ${granted.length > 0 ? `granted ${granted.join(", ")} for this session` : "nothing granted"}`,
        alreadyAllowed.length ? `already allowed: ${alreadyAllowed.join(", ")}` : "",
        refusedByMode.length ? `refused by ${mode} mode: ${refusedByMode.join(", ")}` : "",
        guidance,
      ];
      return { text: lines.filter(Boolean).join("\n"), data };
    };
    const ceiling = refusedByMode.length
      ? ` ${refusedByMode.join(", ")} cannot be granted in ${mode} mode (grantable here: ${
        grantable.join(", ") || "none"
      }); restart the server with another --mode if the user agrees.`
      : "";
    if (askable.length === 0) {
      return result("not_needed", [], `Nothing to ask the user for.${ceiling}`);
    }
    if (!ctx.session.capabilities?.elicitation) {
      return result(
        "unsupported",
        [],
        `This client does not support elicitation, so the user cannot be asked and nothing is granted. ` +
          `Ask the user to restart the server with --mode trusted, or to use a client with elicitation.${ceiling}`,
      );
    }
    let answer;
    try {
      answer = await ctx.elicit({
        message: `The agent asks for: ${askable.join(", ")} (this session only, ${mode} mode).\nReason: ${args.reason}`,
        requestedSchema: {
          type: "object",
          properties: Object.fromEntries(askable.map((permission) => [permission, {
            type: "boolean" as const,
            title: `Grant ${permission}`,
            description: `${PERMISSION_DESCRIPTIONS[permission]} Lifts: ${
              PERMISSION_LIFTS[permission].join(", ") || "the read-only git dirs"
            }.`,
            default: false,
          }])),
          required: askable,
        },
      });
    } catch (error) {
      return result("cancelled", [], `The elicitation failed (${(error as Error).message}); nothing was granted.`);
    }
    if (answer.action === "decline") return result("declined", [], `The user declined; nothing was granted.${ceiling}`);
    if (answer.action === "cancel") {
      return result("cancelled", [], `The user dismissed the request; nothing was granted.`);
    }
    const granted = askable.filter((permission) => answer.content?.[permission] === true);
    return result(
      "accepted",
      granted,
      granted.length > 0
        ? `Granted for this session only; Landlock still confines writes to the workspace and TMPDIR.${ceiling}`
        : `The user answered without ticking any permission; nothing was granted.${ceiling}`,
    );
  },
});
