/** The command gate's walker: it knows the shell, wrappers and `eval`; program calls go to the rules in programs/. */
import type { Mode } from "./modes.ts";
import { ASSIGNMENT, secretName, shellFindings, SHELLS, wrapperFindings, WRAPPERS } from "./gate_wrappers.ts";
import { pathCandidate, type PathQuestions, Places } from "./gate_paths.ts";
import { programFindings } from "./programs/mod.ts";
import { type Call, type Finding, programName } from "./programs/program.ts";
import { type Gate, type RuleId, RULES } from "./rules.ts";
import { HEREDOC_BODY, type Token, tokenize, TokenizeError, type WordToken } from "./tokenizer.ts";

/** Nesting of wrappers and shell code beyond which the gate refuses to guess. */
export const MAX_NESTING = 12;

/** What the gate needs to know about where the command runs. */
export interface GateOptions {
  mode: Mode;
  /** Gates in force: the mode's, minus what this session's grants lift. */
  gates: ReadonlySet<Gate>;
  /** Real path of the workspace root. */
  workspace: string;
  /** Absolute, confined working directory. */
  cwd: string;
  paths: PathQuestions;
}

/** Why a command was refused. */
export interface Refusal {
  rule: RuleId;
  gate: Gate;
  /** The word or operator that matched. */
  token: string;
  message: string;
  hint: string;
}

/** The gate's answer: refused, or accepted with the argv to run (null when a shell runs `cmd`). */
export type Verdict =
  | { ok: true; argv: string[] | null; inlineEnv: Record<string, string> }
  | { ok: false; refusal: Refusal };

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Refuses with `rule`, whether or not its gate is in force. */
function refuse(rule: RuleId, token: string, message: string): never {
  throw new Refused({ rule, gate: RULES[rule].gate, token, message, hint: RULES[rule].hint });
}

/** Shell keywords and builtins: without a shell no program of that name runs what the agent meant. */
const SHELL_BUILTINS = new Set(
  ("if then else elif fi for while until do done case esac select function { } ! [[ ]] cd pushd popd export unset " +
    "set shopt source . alias unalias declare typeset local readonly trap ulimit umask read return exit let hash " +
    "jobs fg bg wait disown coproc eval").split(" "),
);
/** Words a simple command may start with before its program. */
const SHELL_RESERVED_PREFIX = new Set("! { } then do else elif if while until time fi done esac in".split(" "));
const EXPORTERS = new Set(["export", "declare", "typeset", "local", "readonly"]);

const REDIRECTIONS = new Set(["<", ">", ">>", "<>", ">|", "&>", "&>>", ">&", "<&", "<<<", "<<", "<<-"]);

/**
 * Checks one exec request against the gates in force.
 * @example
 * ```ts
 * import { describedPaths } from "./gate_paths.ts";
 * import { gatesInForce } from "./modes.ts";
 * const paths = describedPaths({ workspace: "/work", tmpdir: "/tmp/w" });
 * const options = { mode: "safe" as const, gates: gatesInForce("safe", new Set()), workspace: "/work", cwd: "/work", paths };
 * checkCommand("rm -rf /", {}, options); // { ok: false, refusal: { rule: "destructive.remove_outside", … } }
 * ```
 */
export function checkCommand(cmd: string, env: Record<string, string>, options: GateOptions): Verdict {
  const walker = new Walker(options);
  try {
    return { ok: true, ...walker.check(cmd, env) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}

class Walker {
  readonly #options: GateOptions;
  readonly #places: Places;
  readonly #inlineEnv: Record<string, string> = {};

  constructor(options: GateOptions) {
    this.#options = options;
    this.#places = new Places(options.workspace, options.cwd, options.paths);
  }

  check(cmd: string, env: Record<string, string>): { argv: string[] | null; inlineEnv: Record<string, string> } {
    for (const name of Object.keys(env)) this.#apply(secretName("secret_env.env", name), 0);
    if (this.#options.gates.size === 0) return { argv: null, inlineEnv: {} };
    const tokens = this.#tokenize(cmd);
    if (!this.#options.gates.has("shell_syntax")) {
      this.#shellCode(tokens, 0);
      return { argv: null, inlineEnv: {} };
    }
    for (const token of tokens) this.#plainToken(token);
    const words = tokens as WordToken[];
    const argv = this.#assignments(words).map((word) => word.value);
    if (argv.length === 0) {
      this.#refuse(
        "shell_syntax.assignment_only",
        words[0]?.value ?? "",
        "the command sets variables but runs nothing",
      );
    }
    if (SHELL_BUILTINS.has(programName(argv[0]))) {
      this.#refuse(
        "shell_syntax.builtin",
        argv[0],
        `${argv[0]} is a shell keyword or builtin; safe mode runs no shell`,
      );
    }
    this.#command(argv, 0);
    return { argv, inlineEnv: this.#inlineEnv };
  }

  /** Safe mode runs one plain argv: any operator or expansion is refused at once. */
  #plainToken(token: Token): void {
    if (token.kind === "operator") {
      const rule = token.value === "#"
        ? "shell_syntax.comment"
        : token.value === HEREDOC_BODY || token.value.startsWith("<<") && token.value !== "<<<"
        ? "shell_syntax.heredoc"
        : "shell_syntax.operator";
      const shown = token.value === "\n" ? "newline" : token.value;
      this.#refuse(rule, shown, `${JSON.stringify(shown)} is shell syntax; safe mode runs no shell`);
    } else if (token.expansions.length > 0) {
      const expansion = token.expansions[0];
      const what = `${expansion.kind.replace("_", " ")} ${JSON.stringify(expansion.text)}`;
      this.#refuse("shell_syntax.expansion", expansion.text, `${what} needs a shell; safe mode runs no shell`);
    }
  }

  #tokenize(code: string): Token[] {
    try {
      return tokenize(code);
    } catch (error) {
      if (!(error instanceof TokenizeError)) throw error;
      // Not gate-dependent: what cannot be parsed cannot be checked by any gate in force.
      refuse("shell_syntax.unparsable", error.message, `the command cannot be parsed: ${error.message}`);
    }
  }

  #active(rule: RuleId): boolean {
    return this.#options.gates.has(RULES[rule].gate);
  }

  #refuse(rule: RuleId, token: string, message: string): void {
    if (this.#active(rule)) refuse(rule, token, message);
  }

  /** Acts on findings in order; what a call runs is one level deeper than the call. */
  #apply(findings: readonly Finding[], depth: number): void {
    for (const finding of findings) {
      if (finding.kind === "refusal") this.#refuse(finding.rule, finding.token, finding.message);
      else if (finding.kind === "paths") this.#paths(finding.words);
      else if (finding.kind === "command") this.#command(finding.argv, depth + 1);
      else this.#shellCode(this.#tokenize(finding.code), depth + 1);
    }
  }

  /** Strips leading NAME=value words, checking each name; returns the rest. */
  #assignments(words: WordToken[]): WordToken[] {
    let i = 0;
    while (i < words.length && ASSIGNMENT.test(words[i].raw)) {
      const [name] = words[i].value.split("=", 1);
      this.#apply(secretName("secret_env.inline", name), 0);
      this.#inlineEnv[name] = words[i].value.slice(name.length + 1);
      i++;
    }
    return words.slice(i);
  }

  /** Walks shell code (trusted mode, or a shell grant): every simple command, substitution and redirect. */
  #shellCode(tokens: Token[], depth: number): void {
    if (depth > MAX_NESTING) this.#tooDeep();
    let current: WordToken[] = [];
    let redirect: "path" | "skip" | null = null;
    const flush = () => {
      this.#simpleCommand(current, depth);
      current = [];
    };
    for (const token of tokens) {
      if (token.kind === "operator") {
        if (REDIRECTIONS.has(token.value)) {
          redirect = token.value.startsWith("<<") && token.value !== "<<<" ? "skip" : "path";
        } else if (token.value !== HEREDOC_BODY && token.value !== "#") flush();
        continue;
      }
      for (const expansion of token.expansions) {
        if (expansion.body !== undefined) this.#shellCode(this.#tokenize(expansion.body), depth + 1);
      }
      if (redirect !== null) {
        if (redirect === "path" && !/^&?\d*-?$/.test(token.value)) this.#paths([token.value]);
        redirect = null;
        continue;
      }
      current.push(token);
    }
    flush();
  }

  #simpleCommand(tokens: WordToken[], depth: number): void {
    let start = 0;
    while (start < tokens.length && SHELL_RESERVED_PREFIX.has(tokens[start].value) && !tokens[start].quoted) start++;
    const first = tokens[start]?.value;
    if (first === "for" || first === "case" || first === "select" || first === "function") return;
    const argv = this.#assignments(tokens.slice(start)).map((word) => word.value);
    this.#command(argv, depth);
  }

  #tooDeep(): never {
    refuse(
      "destructive.unanalyzable",
      "",
      `the command nests wrappers or shell code more than ${MAX_NESTING} levels deep`,
    );
  }

  /** One argv (a simple command, or what a wrapper runs): the shell's words here, the programs' in programs/. */
  #command(argv: readonly string[], depth: number): void {
    if (argv.length === 0) return;
    if (depth > MAX_NESTING) this.#tooDeep();
    const [program, ...args] = argv;
    const call: Call = { program, name: programName(program), args, places: this.#places };
    if (call.name === "eval") {
      this.#shellCode(this.#tokenize(args.join(" ")), depth + 1);
    } else if (EXPORTERS.has(call.name)) {
      for (const arg of args.filter((arg) => ASSIGNMENT.test(arg))) {
        this.#apply(secretName("secret_env.inline", arg.split("=", 1)[0]), depth);
      }
    } else if (WRAPPERS.has(call.name)) this.#apply(wrapperFindings(call), depth);
    else if (SHELLS.has(call.name)) this.#apply(shellFindings(args), depth);
    else this.#apply(programFindings(call), depth);
  }

  /** Refuses arguments naming paths outside the workspace (and $TMPDIR). */
  #paths(args: readonly string[]): void {
    if (!this.#active("outside_path.argument")) return;
    for (const arg of args) {
      const candidate = pathCandidate(arg);
      if (candidate !== null && this.#places.outside(candidate)) {
        this.#refuse("outside_path.argument", arg, `${arg} names a path outside the workspace`);
      }
    }
  }
}
