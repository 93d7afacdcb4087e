/** The generated parts of docs/, from the live tools/list and the error registry (tasks/docs.ts writes them). */
import type { Tool } from "../sdk/mod.ts";
import { ERROR_CODES } from "../errors.ts";

type Schema = Record<string, unknown>;

const SAFE_INTEGER = 9007199254740991;

function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(" \\| ");
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(typeOf).join(" \\| ");
  if (schema.type === "array") return `${typeOf((schema.items ?? {}) as Schema)}[]`;
  if (schema.type === "object" && schema.additionalProperties) return "object";
  return String(schema.type ?? "any");
}

function limitsOf(schema: Schema): string {
  const limits: string[] = [];
  for (const key of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]) {
    const value = schema[key];
    const label = key.replace(/imum$/, "").replace(/[A-Z]/, (letter) => ` ${letter.toLowerCase()}`); // "min length"
    if (typeof value === "number" && Math.abs(value) !== SAFE_INTEGER) limits.push(`${label} ${value}`);
  }
  for (const branch of (schema.anyOf ?? []) as Schema[]) {
    const inner = limitsOf(branch);
    if (inner) limits.push(inner);
  }
  return limits.join(", ");
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const yesNo = (value: unknown) => (value ? "yes" : "no");

/** The per-tool reference: annotations, every input with type, default and limits, and the output fields. */
export function renderToolReference(tools: readonly Tool[]): string {
  const sections = tools.map((tool) => {
    const input = tool.inputSchema as Schema;
    const properties = (input.properties ?? {}) as Record<string, Schema>;
    const required = new Set((input.required ?? []) as string[]);
    const a = tool.annotations ?? {};
    const success = ((tool.outputSchema as Schema | undefined)?.anyOf as Schema[] | undefined)?.[0];
    const outputs = Object.keys((success?.properties ?? {}) as Schema).filter((name) => name !== "ok");
    const rows = Object.entries(properties).map(([name, schema]) =>
      `| \`${name}\` | ${typeOf(schema)} | ${required.has(name) ? "yes" : "no"} | ${
        "default" in schema ? `\`${JSON.stringify(schema.default)}\`` : ""
      } | ${limitsOf(schema)} | ${cell(String(schema.description ?? ""))} |`
    );
    return [
      `### \`${tool.name}\``,
      "",
      cell(tool.description ?? ""),
      "",
      `Annotations: read-only ${yesNo(a.readOnlyHint)}, destructive ${yesNo(a.destructiveHint)}, ` +
      `idempotent ${yesNo(a.idempotentHint)}, open-world ${yesNo(a.openWorldHint)}.`,
      "",
      rows.length === 0 ? "Inputs: none (`{}`)." : [
        "| input | type | required | default | limits | description |",
        "| --- | --- | --- | --- | --- | --- |",
        ...rows,
      ].join("\n"),
      "",
      `Output (\`structuredContent\` when \`ok: true\`): ${outputs.map((name) => `\`${name}\``).join(", ")}.`,
    ].join("\n");
  });
  return sections.join("\n\n");
}

/** The one-line-per-tool inventory. */
export function renderInventory(tools: readonly Tool[]): string {
  return tools.map((tool) => `- \`${tool.name}\`: ${cell(tool.title ?? tool.name)} — ${cell(tool.description ?? "")}`)
    .join("\n");
}

/** The error-code table from the registry. */
export function renderErrorCodes(): string {
  return [
    "| code | meaning | recovery hint |",
    "| --- | --- | --- |",
    ...Object.entries(ERROR_CODES).map(([code, entry]) =>
      `| \`${code}\` | ${cell(entry.meaning)} | ${cell(entry.hint)} |`
    ),
  ].join("\n");
}

/**
 * Replaces the text between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; throws when a marker is missing.
 * @example
 * ```ts
 * declare const markdown: string, tools: import("../sdk/mod.ts").Tool[];
 * replaceGenerated(markdown, "tools", renderToolReference(tools));
 * ```
 */
export function replaceGenerated(markdown: string, name: string, body: string): string {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start < 0 || end < start) throw new Error(`markers ${open} … ${close} not found`);
  return `${markdown.slice(0, start + open.length)}\n${body}\n${markdown.slice(end)}`;
}
