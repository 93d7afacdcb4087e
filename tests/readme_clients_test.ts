/**
 * The README's client snippets are real: every JSON and TOML block parses,
 * every workcell command line in them (config `command`/`args`, or a shell
 * line) is accepted by the flag parser itself (src/config.ts) and names the
 * workspace, every tool it names is in the catalog, and every local URL is
 * the MCP endpoint. Each client the README promises has its own section.
 */
import * as path from "node:path";
import { parse as parseToml } from "smol-toml";
import { assert, assertEquals } from "../testing/assert.ts";
import { parseArgs } from "../src/config.ts";
import { TOOL_NAMES as CATALOG_NAMES } from "../src/catalog.ts";
import { MCP_PATH } from "../src/http/serve.ts";
import { NPM_PACKAGE } from "../src/metadata.ts";

const README = new URL("../README.md", import.meta.url);
const SECTION = "## Use it from an MCP client";
const CLIENTS = ["Claude Code", "Codex", "Claude Desktop", "Cursor", "VS Code", "Zed", "Windsurf", "Cline"];
const TOOL_NAMES = new Set<string>(CATALOG_NAMES);

interface Snippet {
  /** The `###` heading it sits under ("" before the first). */
  client: string;
  lang: string;
  text: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
}

/** The fenced blocks of the client section. */
function clientSnippets(markdown: string): Snippet[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(SECTION);
  assert(start >= 0, `README has no "${SECTION}"`);
  const snippets: Snippet[] = [];
  let client = "";
  for (let i = start + 1; i < lines.length && !lines[i].startsWith("## "); i++) {
    if (lines[i].startsWith("### ")) client = lines[i].slice(4).trim();
    const fence = /^```(\w+)$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.indexOf("```", i + 1);
    snippets.push({ client, lang: fence[1], text: lines.slice(i + 1, end).join("\n"), line: i + 1 });
    i = end;
  }
  return snippets;
}

/** Shell words of `text`, quotes removed, with operators (`&&`, `|`, `;`, `>`, `#…`) as their own words. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (
    const [word] of text.replaceAll("\\\n", " ").matchAll(
      /"(?:[^"\\]|\\.)*"|'[^']*'|&&|\|\||[|;>&]|#[^\n]*|\n|[^\s"'|;>&]+/g,
    )
  ) {
    words.push(word.startsWith('"') || word.startsWith("'") ? word.slice(1, -1) : word);
  }
  return words;
}

const OPERATORS = new Set(["&&", "||", "|", ";", ">", "&", "\n"]);

/** The npm package (at any version) given to npx. */
function isPackage(word: string): boolean {
  return word === NPM_PACKAGE || word.startsWith(`${NPM_PACKAGE}@`);
}

/** workcell's argv in each shell command of `text`: after `npx -y workcell` or a `workcell` command word. */
function shellArgvs(text: string): string[][] {
  const words = shellWords(text).filter((word) => !word.startsWith("#"));
  const argvs: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const command = i === 0 || OPERATORS.has(words[i - 1]) || words[i - 1] === "--" || words[i - 1] === "-y";
    if (!command || (!isPackage(words[i]) && path.basename(words[i]) !== "workcell")) continue;
    let end = i + 1;
    while (end < words.length && !OPERATORS.has(words[end])) end++;
    argvs.push(words.slice(i + 1, end));
  }
  return argvs;
}

/** workcell's argv in every `{command, args}` of a parsed config. */
function configArgvs(value: unknown): string[][] {
  if (Array.isArray(value)) return value.flatMap(configArgvs);
  if (value === null || typeof value !== "object") return [];
  const node = value as Record<string, unknown>;
  const found = Object.values(node).flatMap(configArgvs);
  if (typeof node.command === "string" && Array.isArray(node.args)) {
    const args = node.args as string[];
    if (node.command === "npx") {
      const at = args.findIndex(isPackage);
      if (at >= 0) found.push(args.slice(at + 1));
    } else if (path.basename(node.command) === "workcell") found.push(args);
  }
  return found;
}

/** Tool names a snippet grants or configures: `mcp__workcell__X`, Cline's autoApprove, Codex's `tools.X` tables. */
function toolNames(snippet: Snippet, parsed: unknown): string[] {
  const names = [...snippet.text.matchAll(/mcp__workcell__(\w+)/g)].map((match) => match[1]);
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== "object") return;
    const node = value as Record<string, unknown>;
    if (Array.isArray(node.autoApprove)) names.push(...node.autoApprove as string[]);
    if (node.tools && typeof node.tools === "object" && !Array.isArray(node.tools)) {
      names.push(...Object.keys(node.tools));
    }
    Object.values(node).forEach(walk);
  };
  walk(parsed);
  return names;
}

function parse(snippet: Snippet): unknown {
  if (snippet.lang === "json") return JSON.parse(snippet.text);
  if (snippet.lang === "toml") return parseToml(snippet.text);
  return undefined;
}

Deno.test("README: each client named in the issue has a section with at least one checked snippet", async () => {
  const snippets = clientSnippets(await Deno.readTextFile(README));
  for (const client of CLIENTS) {
    assert(snippets.some((snippet) => snippet.client === client), `no snippet under "### ${client}"`);
  }
  assertEquals([...new Set(snippets.map((snippet) => snippet.lang))].sort(), ["json", "sh", "toml"]);
});

/** What is wrong with one snippet, and how many workcell command lines it holds. */
function check(snippet: Snippet): { problems: string[]; commands: number } {
  const where = `README.md:${snippet.line} (${snippet.client || "HTTP"}, ${snippet.lang})`;
  const problems: string[] = [];
  let parsed: unknown;
  try {
    parsed = parse(snippet);
  } catch (error) {
    return { problems: [`${where}: does not parse: ${(error as Error).message}`], commands: 0 };
  }
  const argvs = snippet.lang === "sh" ? shellArgvs(snippet.text) : configArgvs(parsed);
  for (const argv of argvs) {
    try {
      const kind = parseArgs(argv).kind;
      if (kind === "run" && !argv.includes("--workspace")) problems.push(`${where}: ${argv.join(" ")}: no --workspace`);
    } catch (error) {
      problems.push(`${where}: ${argv.join(" ")}: ${(error as Error).message}`);
    }
  }
  for (const name of toolNames(snippet, parsed)) {
    if (!TOOL_NAMES.has(name)) problems.push(`${where}: no tool named ${name}`);
  }
  for (const [url, route] of snippet.text.matchAll(/https?:\/\/(?:127\.0\.0\.1|localhost):\d+(\/[^\s"'`]*)?/g)) {
    if (route !== MCP_PATH) problems.push(`${where}: ${url} is not the MCP endpoint ${MCP_PATH}`);
  }
  return { problems, commands: argvs.length };
}

Deno.test("README: client snippets parse, name only real flags and tools, and the workspace", async () => {
  const snippets = clientSnippets(await Deno.readTextFile(README));
  assertEquals(snippets.flatMap((snippet) => check(snippet).problems), []);
  for (const client of CLIENTS) {
    const commands = snippets.filter((snippet) => snippet.client === client).map((snippet) => check(snippet).commands);
    assert(commands.reduce((a, b) => a + b, 0) > 0, `no workcell command line checked under "### ${client}"`);
  }
});

Deno.test("README snippet checks catch a wrong flag or mode, a missing workspace, a bad tool, URL or syntax", () => {
  const snippet = (lang: string, text: string): Snippet => ({ client: "x", lang, text, line: 1 });
  const bad = [
    snippet("sh", 'claude mcp add w -- npx -y workcell --workspace "$PWD" --mode yolo'),
    snippet("json", '{"a": {"command": "npx", "args": ["-y", "workcell", "--no-such-flag"]}}'),
    snippet("toml", '[s]\ncommand = "/usr/local/bin/workcell"\nargs = ["--mode", "safe"]'),
    snippet("json", '{"allow": ["mcp__workcell__read_files"]}'),
    snippet("json", '{"a": {"autoApprove": ["grep"]}}'),
    snippet("toml", '[mcp_servers.workcell.tools.exec]\napproval_mode = "approve"'),
    snippet("json", '{"url": "http://127.0.0.1:8765/sse"}'),
    snippet("toml", "[a\nb = "),
  ];
  for (const candidate of bad) assertEquals(check(candidate).problems.length, 1, candidate.text);
  const good = snippet("sh", "codex mcp add workcell -- npx -y workcell@0.1.0 --workspace /w && workcell --version");
  assertEquals(check(good), { problems: [], commands: 2 });
});
