import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { HEREDOC_BODY, tokenize, TokenizeError, type WordToken } from "./tokenizer.ts";

const values = (cmd: string) => tokenize(cmd).map((token) => token.kind === "word" ? token.value : `<${token.value}>`);

Deno.test("tokenize: quotes and escapes are removed as sh removes them", () => {
  assertEquals(values(`a 'b c' "d e" f\\ g "h\\"i" 'j\\k' $'l\\n'`), ["a", "b c", "d e", "f g", 'h"i', "j\\k", "l\\n"]);
  assertEquals(values(`x"y"'z'`), ["xyz"]);
  assertEquals(values("a \\\n b"), ["a", "b"]);
});

Deno.test("tokenize: operators split words even without blanks", () => {
  assertEquals(values("a;b&&c||d|e&f>g>>h<i 2>&1 (j) |& k"), [
    "a",
    "<;>",
    "b",
    "<&&>",
    "c",
    "<||>",
    "d",
    "<|>",
    "e",
    "<&>",
    "f",
    "<>>",
    "g",
    "<>>>",
    "h",
    "<<>",
    "i",
    "2",
    "<>&>",
    "1",
    "<(>",
    "j",
    "<)>",
    "<|&>",
    "k",
  ]);
  assertEquals(values("a\nb"), ["a", "<\n>", "b"]);
  // Quoted operators are plain text.
  assertEquals(values(`echo ';' "&&" \\|`), ["echo", ";", "&&", "|"]);
});

Deno.test("tokenize: expansions are recorded with substitution bodies, also inside double quotes", () => {
  const [word] = tokenize(`"$(rm -rf /) \`id\` $HOME \${X} $((1+2))"`) as WordToken[];
  assertEquals(word.expansions.map((e) => [e.kind, e.body ?? null]), [
    ["command_substitution", "rm -rf /"],
    ["command_substitution", "id"],
    ["variable", null],
    ["variable", null],
    ["arithmetic", null],
  ]);
  const kinds = (cmd: string) => (tokenize(cmd)[0] as WordToken).expansions.map((e) => e.kind);
  assertEquals(kinds("*.ts"), ["glob"]);
  assertEquals(kinds("{a,b}"), ["brace"]);
  assertEquals(kinds("~/x"), ["tilde"]);
  assertEquals(kinds("--dir=~/x"), ["tilde"]);
  assertEquals(kinds("'*.ts'"), []);
  assertEquals(kinds("'$HOME'"), []);
  assertEquals(kinds("a{b"), []);
  assertEquals(kinds("<(ls)"), ["process_substitution"]);
});

Deno.test("tokenize: comments and here-document bodies are tokens, not words", () => {
  assertEquals(values("ls # rm -rf /"), ["ls", "<#>"]);
  assertEquals(values("a#b"), ["a#b"]);
  assertEquals(values("cat <<EOF\nrm -rf /\nEOF\nls"), ["cat", "<<<>", "EOF", "<\n>", `<${HEREDOC_BODY}>`, "ls"]);
  assertEquals(values("cat <<-'E'\n\tx\n\tE"), ["cat", "<<<->", "E", "<\n>", `<${HEREDOC_BODY}>`]);
});

Deno.test("tokenize: unterminated quotes and substitutions throw", () => {
  for (const cmd of ["'a", '"a', "`a", "$(a", "${a", "a <(b"]) {
    assert(assertThrows(() => tokenize(cmd)) instanceof TokenizeError, cmd);
  }
});
