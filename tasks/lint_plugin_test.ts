import { assertEquals } from "../testing/assert.ts";
import plugin, { MAX_FILE_LINES, MAX_FUNCTION_LINES } from "./lint_plugin.ts";

const rules = (file: string, source: string) => Deno.lint.runPlugin(plugin, file, source).map((d) => d.id).sort();
const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");

Deno.test("lint plugin: a function of the limit passes, one line more is reported, in src/ only", () => {
  const fits = `export function f() {\n${body(MAX_FUNCTION_LINES)}\n}\n`;
  const over = `export const g = () => {\n${body(MAX_FUNCTION_LINES + 1)}\n};\n`;
  assertEquals(rules("src/a.ts", fits), []);
  assertEquals(rules("src/a.ts", over), ["workcell/max-function-lines"]);
  assertEquals(rules("tests/a_test.ts", over), []);
});

Deno.test("lint plugin: methods count as functions", () => {
  const over = `export class C {\n  m() {\n${body(MAX_FUNCTION_LINES + 1)}\n  }\n}\n`;
  assertEquals(rules("src/c.ts", over), ["workcell/max-function-lines"]);
});

Deno.test("lint plugin: a module of the limit passes, one line more is reported", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
  assertEquals(rules("src/m.ts", lines(MAX_FILE_LINES)), []);
  assertEquals(rules("src/m.ts", lines(MAX_FILE_LINES + 1)), ["workcell/max-file-lines"]);
});

Deno.test("lint plugin: the module cap counts code lines, not comments or blank lines", () => {
  const code = Array.from({ length: MAX_FILE_LINES }, (_, i) => `export const c${i} = ${i}; // c${i}`).join("\n");
  const doc = `/**\n${Array.from({ length: 50 }, (_, i) => ` * line ${i}`).join("\n")}\n */\n`;
  const blanks = "\n\n// a note\n\n";
  assertEquals(rules("src/m.ts", doc + code + blanks + "\n"), []);
  assertEquals(rules("src/m.ts", doc + code + blanks + "export const z = 0;\n"), ["workcell/max-file-lines"]);
});
