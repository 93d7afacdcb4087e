/**
 * The project's own lint rules, run by `deno lint` (deno.json's
 * `lint.plugins`): the size limits of docs/architecture.md for the code in
 * src/. A long function or file is where decisions pile up unseen; the
 * limits make a split the default. A generated table or corpus may opt out
 * with a file-level `deno-lint-ignore-file` that says why.
 *
 * @example
 * ```ts
 * import plugin from "./lint_plugin.ts";
 *
 * Deno.lint.runPlugin(plugin, "src/a.ts", "export function f() {}\n"); // []
 * ```
 */

/** Lines a function in src/ may span, its signature and closing brace included. */
export const MAX_FUNCTION_LINES = 80;
/** Code lines a module in src/ may have: lines with something besides comments and blanks. */
export const MAX_FILE_LINES = 400;

type FunctionNode = Deno.lint.FunctionDeclaration | Deno.lint.FunctionExpression | Deno.lint.ArrowFunctionExpression;

/** The lines `range` spans in `text`, counting a line it only starts or ends on. */
function linesSpanned(text: string, [start, end]: Deno.lint.Range): number {
  let lines = 1;
  for (let at = text.indexOf("\n", start); at >= 0 && at < end; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/**
 * The lines of `text` that hold code: comments are blanked out (their line breaks kept), then the lines left
 * with anything but white space are counted. Doc comments and examples cost nothing against the cap.
 */
function codeLines(text: string, comments: readonly { range: Deno.lint.Range }[]): number {
  let code = "";
  let at = 0;
  for (const { range: [start, end] } of comments) {
    code += text.slice(at, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    at = end;
  }
  code += text.slice(at);
  return code.split("\n").filter((line) => line.trim() !== "").length;
}

const inSrc = (filename: string) => /(^|\/)src\//.test(filename);

const plugin: Deno.lint.Plugin = {
  name: "workcell",
  rules: {
    "max-function-lines": {
      create(context) {
        if (!inSrc(context.filename)) return {};
        const check = (node: FunctionNode) => {
          const lines = linesSpanned(context.sourceCode.text, node.range);
          if (lines <= MAX_FUNCTION_LINES) return;
          context.report({
            node,
            message: `this function spans ${lines} lines; at most ${MAX_FUNCTION_LINES}`,
            hint: "Split it into named steps, each a function that says what it does.",
          });
        };
        return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
      },
    },
    "max-file-lines": {
      create(context) {
        if (!inSrc(context.filename)) return {};
        return {
          Program(node) {
            const lines = codeLines(context.sourceCode.text, context.sourceCode.getAllComments());
            if (lines <= MAX_FILE_LINES) return;
            context.report({
              node,
              range: [0, 0],
              message: `this module has ${lines} code lines; at most ${MAX_FILE_LINES}`,
              hint: "Split it by concept: one concept per module (STYLE.md).",
            });
          },
        };
      },
    },
  },
};

export default plugin;
