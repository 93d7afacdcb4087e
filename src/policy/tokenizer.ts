/** A POSIX-shell lexer: words unquoted, operators, comments, here-documents, and every expansion the shell would do. */

/** An expansion in a word (the shell would do more than run one argv); `body`: the command of `$(…)`, backticks, `<(…)`. */
export interface Expansion {
  kind: "variable" | "command_substitution" | "arithmetic" | "process_substitution" | "glob" | "brace" | "tilde";
  text: string;
  body?: string;
}

/** A shell word: `value` is what the program would receive when no expansion applies. */
export interface WordToken {
  kind: "word";
  value: string;
  raw: string;
  /** Whether any part was quoted or escaped (quoted `=` or `#` is literal). */
  quoted: boolean;
  /** Unquoted (or double-quoted, for `$`) expansions in the word. */
  expansions: Expansion[];
}

/** A control or redirection operator, a comment or a here-document. */
export interface OperatorToken {
  kind: "operator";
  /** `;` `&` `&&` `|` `||` `|&` `(` `)` newline (`\n`), redirections (`>` `>>` `<` `<<` `<<-` `<<<` `<>` `>|` `&>` `&>>` `>&` `<&`), `#` for a comment, or {@linkcode HEREDOC_BODY}. */
  value: string;
}

export type Token = WordToken | OperatorToken;

/** A quote or substitution left open; the shell would refuse it too. */
export class TokenizeError extends Error {
  override readonly name = "TokenizeError";
}

/** Longest first, so that `&>>` is never read as `&>` and `>`. */
const OPERATORS = [..."&>> <<< <<- && || |& ;; >> << <> >| &> >& <& ; & | ( ) < >".split(" "), "\n"];
/** A here-document whose body follows the next newline. */
type Heredoc = { delimiter: string; stripTabs: boolean };

/** The operator value standing for a skipped here-document body. */
export const HEREDOC_BODY = "<<body";
const BLANK = /[ \t\r]/;
const WORD_BREAK = /[ \t\r\n;&|()<>]/;
const NAME_START = /[A-Za-z_]/;
const SPECIAL_PARAM = /[0-9@*#?$!-]/;

/**
 * Splits `cmd` into tokens the way sh would, without expanding anything.
 * @example
 * ```ts
 * tokenize("echo $HOME > out").map((t) => t.kind); // ["word", "word", "operator", "word"]
 * ```
 */
export function tokenize(cmd: string): Token[] {
  const tokens: Token[] = [];
  const pendingHeredocs: Heredoc[] = [];
  let i = 0;
  while (i < cmd.length) {
    const ch = cmd[i];
    if (BLANK.test(ch)) {
      i++;
      continue;
    }
    if (ch === "\\" && cmd[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (ch === "#") {
      const end = cmd.indexOf("\n", i);
      tokens.push({ kind: "operator", value: "#" });
      i = end === -1 ? cmd.length : end;
      continue;
    }
    const operator = OPERATORS.find((op) => cmd.startsWith(op, i));
    if (operator !== undefined) {
      if ((operator === "<" || operator === ">") && cmd[i + 1] === "(") {
        const body = matchParens(cmd, i + 2);
        const text = cmd.slice(i, body.end);
        const expansions: Expansion[] = [{ kind: "process_substitution", text, body: body.text }];
        tokens.push({ kind: "word", value: text, raw: text, quoted: false, expansions });
        i = body.end;
        continue;
      }
      tokens.push({ kind: "operator", value: operator });
      i += operator.length;
      if (operator === "<<" || operator === "<<-") {
        while (i < cmd.length && BLANK.test(cmd[i])) i++;
        const [delimiter, next] = readWord(cmd, i);
        if (delimiter) {
          tokens.push(delimiter);
          pendingHeredocs.push({ delimiter: delimiter.value, stripTabs: operator === "<<-" });
        }
        i = next;
      }
      if (operator === "\n") i = skipHeredocs(cmd, i, pendingHeredocs.splice(0), tokens);
      continue;
    }
    const [word, next] = readWord(cmd, i);
    if (word) tokens.push(word);
    i = next;
  }
  skipHeredocs(cmd, cmd.length, pendingHeredocs, tokens);
  return tokens;
}

/** Skips the bodies of `heredocs` from `i`, one {@linkcode HEREDOC_BODY} token each; returns where the code goes on. */
function skipHeredocs(cmd: string, i: number, heredocs: Heredoc[], tokens: Token[]): number {
  for (const heredoc of heredocs) {
    tokens.push({ kind: "operator", value: HEREDOC_BODY });
    while (i < cmd.length) {
      const end = cmd.indexOf("\n", i);
      const line = cmd.slice(i, end === -1 ? cmd.length : end);
      i = end === -1 ? cmd.length : end + 1;
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) break;
    }
  }
  return i;
}

/** Finds the `)` matching an opening parenthesis just before `start`, honouring quotes and nesting. */
function matchParens(cmd: string, start: number): { text: string; end: number } {
  let depth = 1;
  let i = start;
  while (i < cmd.length) {
    const ch = cmd[i];
    if (ch === "\\") i += 2;
    else if (ch === "'") i = closingQuote(cmd, i, "'") + 1;
    else if (ch === '"') i = closingDoubleQuote(cmd, i) + 1;
    else if (ch === "`") i = closingQuote(cmd, i, "`") + 1;
    else {
      if (ch === "(") depth++;
      if (ch === ")" && --depth === 0) return { text: cmd.slice(start, i), end: i + 1 };
      i++;
    }
  }
  throw new TokenizeError("unterminated parenthesis");
}

function closingQuote(cmd: string, open: number, quote: string): number {
  for (let i = open + 1; i < cmd.length; i++) {
    if (quote === "`" && cmd[i] === "\\") i++;
    else if (cmd[i] === quote) return i;
  }
  throw new TokenizeError(`unterminated ${quote === "'" ? "single quote" : "backtick"}`);
}

function closingDoubleQuote(cmd: string, open: number): number {
  for (let i = open + 1; i < cmd.length; i++) {
    if (cmd[i] === "\\") i++;
    else if (cmd[i] === '"') return i;
    else if (cmd[i] === "`") i = closingQuote(cmd, i, "`");
    else if (cmd.startsWith("$(", i)) i = matchParens(cmd, i + 2).end - 1;
  }
  throw new TokenizeError("unterminated double quote");
}

/** The backtick or `$` expansion at `i` (null when the `$` is literal or starts a quote), and where it ends. */
function readExpansion(cmd: string, i: number): [Expansion | null, number] {
  if (cmd[i] === "`") {
    const end = closingQuote(cmd, i, "`");
    return [{ kind: "command_substitution", text: cmd.slice(i, end + 1), body: cmd.slice(i + 1, end) }, end + 1];
  }
  const next = cmd[i + 1];
  if (cmd.startsWith("$((", i)) {
    const body = matchParens(cmd, i + 2);
    return [{ kind: "arithmetic", text: cmd.slice(i, body.end) }, body.end];
  }
  if (next === "(") {
    const body = matchParens(cmd, i + 2);
    return [{ kind: "command_substitution", text: cmd.slice(i, body.end), body: body.text }, body.end];
  }
  if (next === "{") {
    const end = cmd.indexOf("}", i);
    if (end === -1) throw new TokenizeError("unterminated ${");
    return [{ kind: "variable", text: cmd.slice(i, end + 1) }, end + 1];
  }
  if (next === "'" || next === '"') return [null, i + 1]; // $'…' / $"…": the quote is read next
  if (next !== undefined && NAME_START.test(next)) {
    let end = i + 1;
    while (end < cmd.length && /[A-Za-z0-9_]/.test(cmd[end])) end++;
    return [{ kind: "variable", text: cmd.slice(i, end) }, end];
  }
  if (next !== undefined && SPECIAL_PARAM.test(next)) return [{ kind: "variable", text: cmd.slice(i, i + 2) }, i + 2];
  return [null, i + 1]; // a lone `$` is literal
}

function readWord(cmd: string, start: number): [WordToken | null, number] {
  let value = "";
  let quoted = false;
  const expansions: Expansion[] = [];
  let i = start;
  while (i < cmd.length && !WORD_BREAK.test(cmd[i])) {
    const ch = cmd[i];
    if (ch === "\\") {
      if (i + 1 < cmd.length) value += cmd[i + 1];
      quoted = true;
      i += 2;
    } else if (ch === "'" || (ch === "$" && cmd[i + 1] === "'")) {
      const open = ch === "'" ? i : i + 1;
      const end = closingQuote(cmd, open, "'");
      value += cmd.slice(open + 1, end);
      quoted = true;
      i = end + 1;
    } else if (ch === '"') {
      const end = closingDoubleQuote(cmd, i);
      value += readDoubleQuoted(cmd.slice(i + 1, end), expansions);
      quoted = true;
      i = end + 1;
    } else if (ch === "`" || ch === "$") {
      const [expansion, next] = readExpansion(cmd, i);
      if (expansion) expansions.push(expansion);
      value += cmd.slice(i, next);
      i = next;
    } else {
      if (ch === "*" || ch === "?" || ch === "[") expansions.push({ kind: "glob", text: ch });
      if (ch === "{" && /^\{[^{}\s]*(,|\.\.)[^{}\s]*\}/.test(cmd.slice(i))) {
        expansions.push({ kind: "brace", text: "{" });
      }
      if (ch === "~" && (i === start || (/[=:]/.test(cmd[i - 1]) && !quoted))) {
        expansions.push({ kind: "tilde", text: "~" });
      }
      value += ch;
      i++;
    }
  }
  if (i === start) return [null, i];
  return [{ kind: "word", value, raw: cmd.slice(start, i), quoted, expansions }, i];
}

/** Removes double-quote escapes and records `$` and backtick expansions inside. */
function readDoubleQuoted(inner: string, expansions: Expansion[]): string {
  let value = "";
  let i = 0;
  while (i < inner.length) {
    const ch = inner[i];
    if (ch === "\\" && i + 1 < inner.length && /[$`"\\\n]/.test(inner[i + 1])) {
      value += inner[i + 1];
      i += 2;
    } else if (ch === "`" || (ch === "$" && inner[i + 1] !== "'" && inner[i + 1] !== '"')) {
      const [expansion, next] = readExpansion(inner, i);
      if (expansion) expansions.push(expansion);
      value += inner.slice(i, next);
      i = next;
    } else {
      value += ch;
      i++;
    }
  }
  return value;
}
