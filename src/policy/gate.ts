/**
 * The command gate: tokenises `cmd`, splits it into simple commands, unwraps
 * wrappers (env, timeout, xargs, find -exec, sh -c in shell modes, …) and
 * walks each command against the rule table in rules.ts, with only the
 * gates in force for this mode and session. The first rule that matches
 * refuses the whole command.
 *
 * @example
 * const verdict = checkCommand("rm -rf /", {}, { mode: "safe", gates: new Set(GATES), workspace, cwd: workspace, tmpdir });
 * // { ok: false, refusal: { rule: "destructive.remove_outside", token: "/", ... } }
 */
import * as path from "node:path";
import type { Mode } from "../config.ts";
import { sensitiveEnvKind } from "./env_filter.ts";
import {
  ALLOWED_DEVICES,
  AWK_EXEC,
  AWK_PROGRAMS,
  AWK_VALUE_OPTIONS,
  DESTRUCTIVE_COMMANDS,
  EXPORTERS,
  type Gate,
  GIT_SAFE_CONFIG,
  IN_PLACE_EDITORS,
  INTERPRETERS,
  NETWORK_COMMANDS,
  NETWORK_SUBCOMMANDS,
  NETWORK_URL,
  PERMISSION_CHANGERS,
  PYTHON_NETWORK_MODULES,
  REMOVERS,
  type RuleId,
  RULES,
  SCP_REMOTE,
  SHELL_BUILTINS,
  SHELL_RESERVED_PREFIX,
  SHELL_VALUE_OPTIONS,
  SHELLS,
  SYSTEMCTL_READS,
  WRAPPERS,
} from "./rules.ts";
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
  /** The private temp dir children may also use. */
  tmpdir: string;
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

const REDIRECTIONS = new Set(["<", ">", ">>", "<>", ">|", "&>", "&>>", ">&", "<&", "<<<", "<<", "<<-"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Script operands that are really stdin (code fed through write_stdin, invisible to the gate). */
const STDIN_SCRIPT = /^(-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/(self|thread-self|\d+)\/fd\/\d+)$/;

/**
 * Checks one exec request against the gates in force.
 *
 * @example
 * checkCommand("git status", {}, options); // { ok: true, argv: ["git", "status"], inlineEnv: {} }
 */
export function checkCommand(cmd: string, env: Record<string, string>, options: GateOptions): Verdict {
  const analyser = new Analyser(options);
  try {
    return { ok: true, ...analyser.check(cmd, env) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}

/** Normalises a program name: basename, lower case, version suffixes dropped (python3.12 → python). */
export function programName(word: string): string {
  const base = path.posix.basename(word).toLowerCase();
  const match = /^(python|pypy|pip|perl|ruby|lua|node|php)[0-9.]*$/.exec(base);
  return match ? match[1] : base;
}

class Analyser {
  readonly #options: GateOptions;
  readonly #plain: boolean;
  readonly #inlineEnv: Record<string, string> = {};

  constructor(options: GateOptions) {
    this.#options = options;
    this.#plain = options.gates.has("shell_syntax");
  }

  check(cmd: string, env: Record<string, string>): { argv: string[] | null; inlineEnv: Record<string, string> } {
    for (const name of Object.keys(env)) this.#secret("secret_env.env", name);
    if (this.#options.gates.size === 0) return { argv: null, inlineEnv: {} };
    const tokens = this.#tokenize(cmd);
    if (!this.#plain) {
      this.#shellCode(tokens, 0);
      return { argv: null, inlineEnv: {} };
    }
    for (const token of tokens) {
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
        this.#refuse(
          "shell_syntax.expansion",
          expansion.text,
          `${expansion.kind.replace("_", " ")} ${
            JSON.stringify(expansion.text)
          } needs a shell; safe mode runs no shell`,
        );
      }
    }
    const words = tokens as WordToken[];
    const argv = this.#assignments(words).map((word) => word.value);
    if (argv.length === 0) {
      this.#refuse(
        "shell_syntax.assignment_only",
        words[0]?.value ?? "",
        "the command sets variables but runs nothing",
      );
    }
    this.#command(argv, 0);
    return { argv, inlineEnv: this.#inlineEnv };
  }

  #tokenize(code: string): Token[] {
    try {
      return tokenize(code);
    } catch (error) {
      if (!(error instanceof TokenizeError)) throw error;
      // Not gate-dependent: what cannot be parsed cannot be checked by any gate in force.
      throw new Refused({
        rule: "shell_syntax.unparsable",
        gate: "shell_syntax",
        token: error.message,
        message: `the command cannot be parsed: ${error.message}`,
        hint: RULES["shell_syntax.unparsable"].hint,
      });
    }
  }

  #active(rule: RuleId): boolean {
    const entry = RULES[rule] as { gate: Gate; modes?: readonly Mode[] };
    return this.#options.gates.has(entry.gate) &&
      (entry.modes === undefined || entry.modes.includes(this.#options.mode));
  }

  #refuse(rule: RuleId, token: string, message: string): void {
    if (!this.#active(rule)) return;
    throw new Refused({ rule, gate: RULES[rule].gate, token, message, hint: RULES[rule].hint });
  }

  #secret(rule: "secret_env.env" | "secret_env.inline", name: string): void {
    const kind = sensitiveEnvKind(name);
    if (kind) {
      this.#refuse(
        rule,
        name,
        `${name} is a ${kind === "loader" ? "loader/code-injection" : "secret-looking"} variable`,
      );
    }
  }

  /** Strips leading NAME=value words, checking each name; returns the rest. */
  #assignments(words: WordToken[]): WordToken[] {
    let i = 0;
    while (i < words.length && ASSIGNMENT.test(words[i].raw)) {
      const [name] = words[i].value.split("=", 1);
      this.#secret("secret_env.inline", name);
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
        if (token.value === HEREDOC_BODY || token.value === "#") continue;
        if (REDIRECTIONS.has(token.value)) {
          redirect = token.value.startsWith("<<") && token.value !== "<<<" ? "skip" : "path";
          continue;
        }
        flush();
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
    throw new Refused({
      rule: "destructive.unanalyzable",
      gate: "destructive",
      token: "",
      message: `the command nests wrappers or shell code more than ${MAX_NESTING} levels deep`,
      hint: RULES["destructive.unanalyzable"].hint,
    });
  }

  /** One argv (a simple command, or what a wrapper runs). */
  #command(argv: string[], depth: number): void {
    if (argv.length === 0) return;
    if (depth > MAX_NESTING) this.#tooDeep();
    const [program, ...args] = argv;
    const name = programName(program);

    if (name === "eval") {
      this.#refuse("inline_script.eval", "eval", "eval runs its arguments as shell code");
      this.#shellCode(this.#tokenize(args.join(" ")), depth + 1);
      return;
    }
    if (SHELL_BUILTINS.has(name) && this.#plain) {
      this.#refuse(
        "shell_syntax.builtin",
        program,
        `${program} is a shell keyword or builtin; safe mode runs no shell`,
      );
    }
    if (EXPORTERS.has(name)) {
      for (const arg of args) if (ASSIGNMENT.test(arg)) this.#secret("secret_env.inline", arg.split("=", 1)[0]);
    }
    const whole = DESTRUCTIVE_COMMANDS[name] ?? (/^(mkfs|mke2fs|mkdosfs)/.test(name) ? "destructive.disk" : undefined);
    if (whole) this.#refuse(whole, program, `${program} is refused: ${RULES[whole].refuses}`);
    if (NETWORK_COMMANDS.has(name)) this.#refuse("network.command", program, `${program} is a network client`);
    this.#networkSubcommand(name, program, args);
    for (const arg of args) {
      const value = arg.slice(arg.indexOf("=") + 1);
      if ([arg, value].some((word) => NETWORK_URL.test(word) || SCP_REMOTE.test(word))) {
        this.#refuse("network.url", arg, `${arg} is a network address`);
      }
    }

    const wrapper = WRAPPERS[name];
    if (wrapper) return this.#wrapper(name, program, args, depth);
    if (SHELLS.has(name)) return this.#shell(program, args, depth);
    if (INTERPRETERS[name]) return this.#interpreter(name, program, args);
    if (AWK_PROGRAMS.has(name)) return this.#awk(program, args);
    if (name === "sed") return this.#sed(program, args);
    if (name === "find") return this.#find(args, depth);
    if (name === "git") return this.#git(args);
    if (name === "rsync") {
      for (const arg of args) {
        if (/^[^/.-][^/]*:/.test(arg)) this.#refuse("network.remote", arg, `rsync to or from the host ${arg}`);
      }
    }
    if (REMOVERS.has(name)) this.#remove(program, args);
    if (PERMISSION_CHANGERS.has(name)) this.#permissions(program, args);
    if (name === "kill") this.#kill(args);
    if (name === "systemctl") {
      const sub = args.find((arg) => !arg.startsWith("-")) ?? "";
      if (!SYSTEMCTL_READS.has(sub)) {
        this.#refuse("destructive.system", `systemctl ${sub}`, `systemctl ${sub} changes system state`);
      }
    }
    if (name === "sysctl" && args.some((arg) => arg === "-w" || arg.includes("="))) {
      this.#refuse("destructive.system", "sysctl -w", "sysctl writes kernel parameters");
    }
    if (IN_PLACE_EDITORS.has(name) && args.some((arg) => /^-[A-Za-z]*i/.test(arg) || arg.startsWith("--in-place"))) {
      this.#refuse("destructive.in_place_edit", `${program} -i`, `${program} -i edits files in place`);
    }
    this.#paths(args);
  }

  #networkSubcommand(name: string, program: string, args: string[]): void {
    const table = NETWORK_SUBCOMMANDS[name];
    if (!table || name === "git") return;
    const sub = args.find((arg) => !arg.startsWith("-") || (name === "pacman" && /^-S/.test(arg))) ?? "";
    if (table.has(sub) || (name === "go" && sub === "mod" && args.includes("download"))) {
      this.#refuse("network.subcommand", `${program} ${sub}`.trim(), `${program} ${sub} reaches the network`);
    }
  }

  #wrapper(name: string, program: string, args: string[], depth: number): void {
    const spec = WRAPPERS[name];
    const own: string[] = [];
    let positionals = spec.positionals ?? 0;
    let i = 0;
    for (; i < args.length; i++) {
      const arg = args[i];
      if (arg === "--") {
        i++;
        break;
      }
      const shellOption = spec.shellOptions?.find((option) => matchesOption(arg, option));
      if (shellOption) {
        const code = arg === shellOption || /^-[A-Za-z]+$/.test(arg)
          ? args[i + 1] ?? ""
          : arg.startsWith(`${shellOption}=`)
          ? arg.slice(shellOption.length + 1)
          : arg.slice(shellOption.length);
        this.#refuse("inline_script.wrapper", `${program} ${shellOption}`, `${program} ${shellOption} runs shell code`);
        if (name === "env") this.#command(code.split(/\s+/).filter(Boolean), depth + 1);
        else this.#shellCode(this.#tokenize(code), depth + 1);
        return;
      }
      if (spec.valueOptions?.includes(arg)) {
        own.push(args[++i] ?? "");
        continue;
      }
      if (arg.startsWith("-") && arg !== "-") {
        own.push(arg);
        continue;
      }
      if (spec.assignments && ASSIGNMENT.test(arg)) {
        this.#secret("secret_env.inline", arg.split("=", 1)[0]);
        continue;
      }
      if (positionals-- > 0) {
        own.push(arg);
        continue;
      }
      break;
    }
    this.#paths(own);
    const inner = args.slice(i);
    if (spec.shellUnless && !args.slice(0, i).some((arg) => spec.shellUnless!.includes(arg))) {
      this.#refuse("inline_script.wrapper", program, `${program} runs its arguments through sh -c`);
      this.#shellCode(this.#tokenize(inner.join(" ")), depth + 1);
      return;
    }
    this.#command(inner, depth + 1);
  }

  #shell(program: string, args: string[], depth: number): void {
    let inline = false;
    let stdin = false;
    let i = 0;
    for (; i < args.length; i++) {
      const arg = args[i];
      if (arg === "--" || arg === "-") {
        i++;
        break;
      }
      if (SHELL_VALUE_OPTIONS.has(arg)) {
        i++;
        continue;
      }
      if (/^[-+][A-Za-z]+$/.test(arg)) {
        if (arg[0] === "-" && arg.includes("c")) inline = true;
        if (arg[0] === "-" && /[si]/.test(arg)) stdin = true;
        continue;
      }
      if (arg.startsWith("--")) continue;
      break;
    }
    const operands = args.slice(i);
    if (inline) {
      this.#refuse("inline_script.shell", `${program} -c`, `${program} -c runs inline shell code`);
      this.#shellCode(this.#tokenize(operands[0] ?? ""), depth + 1);
      return;
    }
    if (stdin || operands.length === 0 || STDIN_SCRIPT.test(operands[0])) {
      this.#refuse("inline_script.shell", program, `${program} without a script file reads shell code from stdin`);
    }
    this.#paths(operands);
  }

  #interpreter(name: string, program: string, args: string[]): void {
    const spec = INTERPRETERS[name];
    const first = args.find((arg) => !arg.startsWith("-"));
    if (spec.subcommands && first !== undefined && spec.subcommands.includes(first)) {
      this.#refuse("inline_script.interpreter", `${program} ${first}`, `${program} ${first} runs inline code`);
    }
    const script = args.find((arg) => arg === "-" || !arg.startsWith("-"));
    for (const arg of args) {
      if ((arg === script && STDIN_SCRIPT.test(arg)) || /^data:/i.test(arg.slice(arg.indexOf("=") + 1))) {
        this.#refuse(
          "inline_script.interpreter",
          `${program} ${arg}`,
          `${program} ${arg} runs code that is not a file`,
        );
      }
    }
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === "--" || !arg.startsWith("-") || arg === "-") break;
      const long = spec.long.find((option) => arg === option || arg.startsWith(`${option}=`));
      const short = /^-[A-Za-z]+$/.test(arg) && [...arg.slice(1)].some((letter) => spec.short.includes(letter));
      if (long || short) {
        this.#refuse("inline_script.interpreter", `${program} ${arg}`, `${program} ${arg} runs inline code`);
      }
      if (name === "python" && arg === "-m") {
        const module = args[i + 1] ?? "";
        if (
          PYTHON_NETWORK_MODULES.has(module) &&
          (module !== "pip" || /^(install|download|wheel|search|index)$/.test(args[i + 2] ?? ""))
        ) {
          this.#refuse("network.subcommand", `${program} -m ${module}`, `${program} -m ${module} reaches the network`);
        }
        break;
      }
    }
    if ((name === "perl" || name === "ruby") && args.some((arg) => /^-[A-Za-z]*i/.test(arg))) {
      this.#refuse("destructive.in_place_edit", `${program} -i`, `${program} -i edits files in place`);
    }
    this.#paths(args);
  }

  #awk(program: string, args: string[]): void {
    let fromFile = false;
    const operands: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (AWK_VALUE_OPTIONS.has(arg)) {
        if (arg === "-f" || arg === "--file") {
          fromFile = true;
          operands.push(args[i + 1] ?? "");
        }
        i++;
      } else if (arg.startsWith("-") && arg !== "-" && operands.length === 0 && !fromFile) {
        continue;
      } else operands.push(arg);
    }
    const [code, ...files] = fromFile ? ["", ...operands] : operands;
    if (AWK_EXEC.test(code ?? "")) {
      this.#refuse(
        "inline_script.interpreter",
        `${program} ${code}`,
        `the ${program} program runs commands (system, getline or a pipe)`,
      );
    }
    this.#paths(files);
  }

  #sed(program: string, args: string[]): void {
    const scripts: string[] = [];
    const files: string[] = [];
    let explicit = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === "-e" || arg === "--expression" || arg === "-f" || arg === "--file") {
        explicit = true;
        (arg.endsWith("f") || arg === "--file" ? files : scripts).push(args[++i] ?? "");
      } else if (arg.startsWith("--expression=")) {
        explicit = true;
        scripts.push(arg.slice("--expression=".length));
      } else if (/^-[A-Za-z]*i/.test(arg) || arg.startsWith("--in-place")) {
        this.#refuse("destructive.in_place_edit", `${program} -i`, `${program} -i edits files in place`);
      } else if (arg.startsWith("-") && arg !== "-") continue;
      else if (!explicit && scripts.length === 0) scripts.push(arg);
      else files.push(arg);
    }
    for (const script of scripts) {
      if (
        /(^|[;\n{}])\s*([0-9]+(,[0-9]+)?|\$)?\s*e(\s|;|$)/.test(script) || /^s(.).*\1.*\1[gpIiMm0-9]*e/.test(script)
      ) {
        this.#refuse("inline_script.interpreter", script, "the sed script runs commands (e)");
      }
    }
    this.#paths(files);
  }

  #find(args: string[], depth: number): void {
    const starts: string[] = [];
    let i = 0;
    while (i < args.length && !/^[-(!]/.test(args[i])) starts.push(args[i++]);
    const rest: string[] = [];
    for (; i < args.length; i++) {
      const arg = args[i];
      if (["-exec", "-execdir", "-ok", "-okdir"].includes(arg)) {
        const inner: string[] = [];
        for (i++; i < args.length && args[i] !== ";" && args[i] !== "+"; i++) inner.push(args[i]);
        this.#command(inner, depth + 1);
      } else if (arg === "-delete") {
        this.#remove("find -delete", ["-r", ...(starts.length > 0 ? starts : ["."])]);
      } else rest.push(arg);
    }
    this.#paths([...starts, ...rest]);
  }

  #gitConfigKey(key: string, token: string): void {
    if (!GIT_SAFE_CONFIG.test(key)) {
      this.#refuse("inline_script.git_config", token, `git config key ${key} can run programs`);
    }
  }

  #git(args: string[]): void {
    const own: string[] = [];
    let i = 0;
    for (; i < args.length && args[i].startsWith("-"); i++) {
      const arg = args[i];
      if (arg === "-c" || (arg.startsWith("-c") && arg.length > 2)) {
        const pair = arg === "-c" ? args[++i] ?? "" : arg.slice(2);
        this.#gitConfigKey(pair.split("=", 1)[0], `git -c ${pair}`);
      } else if (arg === "--config-env" || arg.startsWith("--config-env=") || arg.startsWith("--exec-path")) {
        this.#refuse("inline_script.git_config", arg, `git ${arg} can run programs`);
      } else if (["-C", "--git-dir", "--work-tree", "--namespace"].includes(arg)) {
        own.push(args[++i] ?? "");
      } else own.push(arg);
    }
    this.#paths(own);
    const sub = args[i] ?? "";
    const rest = args.slice(i + 1);
    const has = (...flags: string[]) => rest.some((arg) => flags.includes(arg));
    const cluster = (letter: string) => rest.some((arg) => new RegExp(`^-[A-Za-z]*${letter}`).test(arg));
    const network = NETWORK_SUBCOMMANDS.git.has(sub) ||
      (sub === "remote" && ["update", "show", "prune", "set-head"].includes(rest[0] ?? "")) ||
      (sub === "submodule" && has("update", "sync", "foreach")) ||
      (sub === "lfs" && ["fetch", "pull", "push", "clone"].includes(rest[0] ?? "")) ||
      (sub === "archive" && rest.some((arg) => arg.startsWith("--remote")));
    if (network) this.#refuse("network.subcommand", `git ${sub}`, `git ${sub} reaches the network`);
    const discard = (sub === "reset" && has("--hard", "--merge", "--keep")) ||
      (sub === "clean" && !has("--dry-run") && !cluster("n")) ||
      (sub === "checkout" &&
        (has(".", "-f", "--force", "--ours", "--theirs") || (has("--") && rest.indexOf("--") < rest.length - 1))) ||
      (sub === "restore" && !(has("--staged", "-S") && !has("--worktree", "-W"))) ||
      (sub === "stash" && ["drop", "clear"].includes(rest[0] ?? "")) ||
      (sub === "switch" && has("-f", "--force", "--discard-changes"));
    if (discard) {
      this.#refuse("destructive.git_discard", `git ${sub}`, `git ${sub} ${rest.join(" ")} discards work`.trim());
    }
    const history = (sub === "branch" && (cluster("D") || (has("--delete", "-d") && has("--force", "-f")))) ||
      (sub === "push" &&
        (has("--force", "-f", "--force-with-lease", "--mirror", "--delete") ||
          rest.some((arg) => arg.startsWith("+") || arg.startsWith("--force")))) ||
      (sub === "reflog" && ["expire", "delete"].includes(rest[0] ?? "")) ||
      (sub === "update-ref" && has("-d")) ||
      sub === "filter-branch" || sub === "filter-repo";
    if (history) {
      this.#refuse(
        "destructive.git_history",
        `git ${sub}`,
        `git ${sub} ${rest.join(" ")} rewrites or deletes history`.trim(),
      );
    }
    if (sub === "config" && !has("--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin")) {
      const operands = rest.filter((arg) => !arg.startsWith("-"));
      if (operands.length >= 2 || has("--add", "--replace-all")) {
        this.#gitConfigKey(operands[0] ?? "", `git config ${operands[0]}`);
      }
    }
    this.#paths(rest);
  }

  #remove(program: string, args: string[]): void {
    if (args.includes("--no-preserve-root")) {
      this.#refuse("destructive.remove_outside", "--no-preserve-root", `${program} --no-preserve-root`);
    }
    const dashdash = args.indexOf("--");
    const options = args.filter((arg, index) => (dashdash === -1 || index < dashdash) && arg.startsWith("-"));
    const forceful = options.some((arg) => /^-[A-Za-z]*[rRf]/.test(arg) || arg === "--recursive" || arg === "--force");
    const targets = args.filter((arg, index) => (dashdash !== -1 && index > dashdash) || !arg.startsWith("-"));
    for (const target of targets) {
      const why = this.#removalProblem(target, forceful);
      if (why) this.#refuse("destructive.remove_outside", target, `${program} ${target}: ${why}`);
    }
  }

  #removalProblem(target: string, forceful: boolean): string | null {
    if (target === "" || /^[$`~]/.test(target)) {
      return forceful ? "the target is not a literal path inside the workspace" : null;
    }
    const { workspace, cwd } = this.#options;
    const abs = path.resolve(cwd, target);
    const globbed = /[*?[]/.test(path.basename(abs)) ? path.dirname(abs) : abs;
    if (globbed === workspace || abs === workspace) return "that is the workspace root";
    if (!this.#inside(abs)) return "that is outside the workspace";
    const parent = realParent(abs);
    if (parent !== null && !this.#inside(parent)) return "it resolves (through a symlink) outside the workspace";
    return null;
  }

  #permissions(program: string, args: string[]): void {
    if (args.some((arg) => arg === "--recursive" || /^-[A-Za-z]*R/.test(arg))) {
      this.#refuse("destructive.permissions", `${program} -R`, `${program} -R changes a whole tree`);
    }
    for (const arg of args.filter((word) => !word.startsWith("-") && !word.startsWith("+"))) {
      if (this.#outside(arg)) {
        this.#refuse("destructive.permissions", arg, `${program} ${arg} is outside the workspace`);
      }
    }
  }

  #kill(args: string[]): void {
    // The first option is the signal (with its value after -s/-n); every later word, `-1` included, is a target.
    let i = 0;
    if (args[0] === "-s" || args[0] === "-n") i = 2;
    else if (args[0]?.startsWith("-") && args[0] !== "--") i = 1;
    if (args[i] === "--") i++;
    const targets = args[0] === "-l" || args[0] === "-L" ? [] : args.slice(i);
    for (const target of targets) {
      if (!/^(%\d*|\$!)$/.test(target)) {
        this.#refuse(
          "destructive.kill",
          `kill ${target}`,
          `kill ${target} signals a process this command did not start`,
        );
      }
    }
  }

  /** Refuses arguments naming paths outside the workspace (and $TMPDIR). */
  #paths(args: string[]): void {
    if (!this.#active("outside_path.argument")) return;
    for (const arg of args) {
      const candidate = pathCandidate(arg);
      if (candidate !== null && this.#outside(candidate)) {
        this.#refuse("outside_path.argument", arg, `${arg} names a path outside the workspace`);
      }
    }
  }

  #inside(abs: string): boolean {
    const { workspace, tmpdir } = this.#options;
    return isBeneath(workspace, abs) || isBeneath(tmpdir, abs) || ALLOWED_DEVICES.has(abs) ||
      /^\/dev\/fd\/\d+$/.test(abs);
  }

  /** Whether a path-like word names something outside; absolute words count only if their top directory exists. */
  #outside(candidate: string): boolean {
    if (candidate.startsWith("~")) return true;
    const abs = path.resolve(this.#options.cwd, candidate);
    if (!this.#inside(abs)) {
      if (!candidate.startsWith("/")) return true;
      const top = abs.split("/").slice(0, 2).join("/") || "/";
      return top === "/" || exists(top);
    }
    const real = realParent(abs, true);
    return real !== null && !this.#inside(real);
  }
}

/** Whether `arg` gives `option`: exactly, as `--opt=value`, attached (`-Svalue`) or ending a short cluster (`-qc`). */
function matchesOption(arg: string, option: string): boolean {
  if (arg === option || arg.startsWith(`${option}=`)) return true;
  if (option.startsWith("--") || arg.startsWith("--")) return false;
  return arg.startsWith(option) || new RegExp(`^-[A-Za-z]*${option.slice(1)}$`).test(arg);
}

/** The part of a word that would be a path: the word, an `--opt=value` value, an attached `-Ivalue`, a `key=value` value. */
function pathCandidate(arg: string): string | null {
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    return eq === -1 ? null : arg.slice(eq + 1);
  }
  if (arg.startsWith("-")) return /^-[A-Za-z][/~]/.test(arg) ? arg.slice(2) : null;
  const assignment = /^[A-Za-z_][A-Za-z0-9_.-]*=(.*)$/.exec(arg);
  if (assignment) return /^[/~.]/.test(assignment[1]) ? assignment[1] : null;
  return arg === "" ? null : arg;
}

function isBeneath(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith("/") ? root : `${root}/`);
}

function exists(abs: string): boolean {
  try {
    Deno.lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

/**
 * The real path of `abs` (or of its nearest existing ancestor, with the rest
 * appended). With `followLast` false the last component is not resolved (rm
 * removes a symlink, not its target).
 */
function realParent(abs: string, followLast = false): string | null {
  let probe = followLast ? abs : path.dirname(abs);
  const tail: string[] = followLast ? [] : [path.basename(abs)];
  while (true) {
    try {
      return path.join(Deno.realPathSync(probe), ...tail);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.NotADirectory)) return null;
      if (probe === "/") return null;
      tail.unshift(path.basename(probe));
      probe = path.dirname(probe);
    }
  }
}
