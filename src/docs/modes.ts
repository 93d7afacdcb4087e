import { commandExecution, type Mode, MODE_POLICIES, MODES } from "../policy/modes.ts";
import { type Rule, RULES } from "../policy/rules.ts";
import { ENV_RULES } from "../policy/child_environment.ts";

/** One row per mode: execution, gates, sandbox, network. */
export function renderModes(): string {
  return [
    "| mode | execution | command gates | Landlock sandbox | child network |",
    "| --- | --- | --- | --- | --- |",
    ...MODES.map((mode) => {
      const policy = MODE_POLICIES[mode];
      return `| \`${mode}\` | ${commandExecution(mode, new Set()) === "argv" ? "argv, no shell" : "`/bin/sh -c`"} | ${
        policy.gates.map((gate) => `\`${gate}\``).join(", ") || "none"
      } | ${policy.landlock ? "yes" : "no"} | ${policy.network ? "allowed" : "denied"} |`;
    }),
  ].join("\n");
}

function enforcedIn(rule: Rule): Mode[] {
  return MODES.filter((mode) => (MODE_POLICIES[mode].gates as readonly string[]).includes(rule.gate));
}

/** The gate's rule table, from the rules themselves. */
export function renderRules(): string {
  return [
    "| rule | gate | refuses | why it is there | applies in |",
    "| --- | --- | --- | --- | --- |",
    ...Object.entries(RULES).map(([name, rule]: [string, Rule]) =>
      `| \`${name}\` | ${rule.gate} | ${rule.refuses.replaceAll("|", "\\|")} | ${
        rule.why === "earlier" ? "earlier word: " : "the kernel cannot: "
      }${rule.because} | ${enforcedIn(rule).join(", ")} |`
    ),
  ].join("\n");
}

/** The environment rules children's variables are filtered by, from the rules themselves. */
export function renderEnvRules(): string {
  return [
    "| rule | kind | strips | applies in |",
    "| --- | --- | --- | --- |",
    ...ENV_RULES.map((rule) =>
      `| \`${rule.id}\` | ${rule.kind} | ${rule.description.replaceAll("|", "\\|")} | ${
        rule.kind === "server" ? "every mode" : "safe, trusted"
      } |`
    ),
  ].join("\n");
}
