/** The per-mode table, from the policy table itself. */
import { MODE_POLICIES } from "../policy/modes.ts";

/** One row per mode: execution, gates, sandbox, network. */
export function renderModes(): string {
  return [
    "| mode | execution | command gates | Landlock sandbox | child network |",
    "| --- | --- | --- | --- | --- |",
    ...Object.entries(MODE_POLICIES).map(([mode, policy]) =>
      `| \`${mode}\` | ${policy.execution === "argv" ? "argv, no shell" : "`/bin/sh -c`"} | ${
        policy.gates.map((gate) => `\`${gate}\``).join(", ") || "none"
      } | ${policy.landlock ? "yes" : "no"} | ${policy.network ? "allowed" : "denied"} |`
    ),
  ].join("\n");
}
