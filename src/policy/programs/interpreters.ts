/**
 * Interpreters given code that is not a file: inline options (`python -c`,
 * `node -e`, `perl -ne`, …), subcommands (`deno eval`), a script read from
 * stdin or a `data:` URL; `python -m` of a module that reaches the network;
 * perl and ruby editing in place (in_place.ts).
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * INTERPRETERS.check({ program: "python3", name: "python", args: ["-c", "print(1)"], places })[0];
 * // { kind: "refusal", rule: "inline_script.interpreter", token: "python3 -c", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import { namesStdin } from "../gate_paths.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { inPlaceEdit } from "./in_place.ts";
import type { ProgramRules } from "./program.ts";

/** The options that take inline code (short ones may be clustered, e.g. `-lne`), and subcommands that do. */
interface InterpreterSpec {
  short: string;
  long: readonly string[];
  subcommands?: readonly string[];
}

const SPECS = new Map<string, InterpreterSpec>([
  ["python", { short: "c", long: [] }],
  ["pypy", { short: "c", long: [] }],
  ["node", { short: "ep", long: ["--eval", "--print"] }],
  ["nodejs", { short: "ep", long: ["--eval", "--print"] }],
  ["bun", { short: "e", long: ["--eval", "--print"] }],
  ["deno", { short: "", long: [], subcommands: ["eval", "repl"] }],
  ["perl", { short: "eE", long: [] }],
  ["ruby", { short: "e", long: [] }],
  ["php", { short: "r", long: [] }],
  ["lua", { short: "e", long: [] }],
  ["luajit", { short: "e", long: [] }],
  ["rscript", { short: "e", long: [] }],
  ["julia", { short: "eE", long: ["--eval", "--print"] }],
  ["osascript", { short: "e", long: [] }],
  ["pwsh", { short: "c", long: ["-command", "--command"] }],
  ["gdb", { short: "", long: ["-ex", "--ex", "-eval-command", "--eval-command"] }],
]);

/** `python -m MODULE` values that reach the network. */
const PYTHON_NETWORK_MODULES = new Set([
  "pip",
  "http.server",
  "SimpleHTTPServer",
  "smtpd",
  "ftplib",
  "ensurepip",
  "venv-upgrade",
]);

/** Inline-code options up to the script (and `python -m`, which ends python's options). */
function inlineOptions(program: string, name: string, spec: InterpreterSpec, args: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" || !arg.startsWith("-") || arg === "-") break;
    const long = spec.long.find((option) => arg === option || arg.startsWith(`${option}=`));
    const short = /^-[A-Za-z]+$/.test(arg) && [...arg.slice(1)].some((letter) => spec.short.includes(letter));
    if (long || short) {
      findings.push(refusal("inline_script.interpreter", `${program} ${arg}`, `${program} ${arg} runs inline code`));
    }
    if (name === "python" && arg === "-m") {
      const module = args[i + 1] ?? "";
      if (
        PYTHON_NETWORK_MODULES.has(module) &&
        (module !== "pip" || /^(install|download|wheel|search|index)$/.test(args[i + 2] ?? ""))
      ) {
        findings.push(
          refusal("network.subcommand", `${program} -m ${module}`, `${program} -m ${module} reaches the network`),
        );
      }
      break;
    }
  }
  return findings;
}

/**
 * The interpreters' rules.
 *
 * @example
 * ```ts
 * INTERPRETERS.covers("python"); // true
 * ```
 */
export const INTERPRETERS: ProgramRules = {
  covers: (name) => SPECS.has(name),
  check(call: Call): Finding[] {
    const { program, name, args } = call;
    const spec = SPECS.get(name)!;
    const findings: Finding[] = [];
    const first = args.find((arg) => !arg.startsWith("-"));
    if (spec.subcommands && first !== undefined && spec.subcommands.includes(first)) {
      findings.push(
        refusal("inline_script.interpreter", `${program} ${first}`, `${program} ${first} runs inline code`),
      );
    }
    const script = args.find((arg) => arg === "-" || !arg.startsWith("-"));
    for (const arg of args) {
      if ((arg === script && namesStdin(arg)) || /^data:/i.test(arg.slice(arg.indexOf("=") + 1))) {
        findings.push(
          refusal("inline_script.interpreter", `${program} ${arg}`, `${program} ${arg} runs code that is not a file`),
        );
      }
    }
    findings.push(...inlineOptions(program, name, spec, args));
    findings.push(...inPlaceEdit(call, args));
    return [...findings, pathWords(args)];
  },
  examples: {
    refused: [
      ["gdb -ex run ./a.out", "inline_script.interpreter"],
      ["pwsh -command ls", "inline_script.interpreter"],
      ["python -m ensurepip", "network.subcommand"],
      ["ruby -i.orig x.rb f", "destructive.in_place_edit"],
      ["node /dev/fd/0", "inline_script.interpreter"],
    ],
    allowed: ["python -m pip list", "python3 -u script.py -c 1", "deno check main.ts", "node --inspect x.js"],
  },
};

/**
 * The corpus rows of the interpreters (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["python3 -m pip install requests", "network.subcommand", null],
  ["python -m http.server 8000", "network.subcommand", null],
  ["python3 /dev/stdin", "inline_script.interpreter", null],
  ["node -", "inline_script.interpreter", null],
  ["deno run 'data:text/javascript,Deno.exit(3)'", "inline_script.interpreter", null],
  ["node --import=data:text/javascript,1 x.js", "inline_script.interpreter", null],
  ["python -c 'print(1)'", "inline_script.interpreter", null],
  ["python3 -c 'import os'", "inline_script.interpreter", null],
  ["python3.12 -Ic 'import os'", "inline_script.interpreter", null],
  ["node -e 'console.log(1)'", "inline_script.interpreter", null],
  ["node --eval 'process.exit(1)'", "inline_script.interpreter", null],
  ["node -p 1+1", "inline_script.interpreter", null],
  ["deno eval 'console.log(1)'", "inline_script.interpreter", null],
  ["deno repl", "inline_script.interpreter", null],
  ["perl -e 'print 1'", "inline_script.interpreter", null],
  ["perl -ne 'print' src/a.ts", "inline_script.interpreter", null],
  ["ruby -e 'puts 1'", "inline_script.interpreter", null],
  ["php -r 'echo 1;'", "inline_script.interpreter", null],
  ["lua -e 'print(1)'", "inline_script.interpreter", null],
  ["bun -e 'console.log(1)'", "inline_script.interpreter", null],
  ["perl -pi -e s/a/b/ src/a.ts", "inline_script.interpreter", null],
  ["perl -i.bak -p x.pl src/a.ts", "destructive.in_place_edit", null],
  ["python3 -c 'import shutil; shutil.rmtree(\"/\")'", "inline_script.interpreter", null],
  ["python3 tool.py --out=/etc/x", "outside_path.argument", null],
  ["python3 /root/x.py", "outside_path.argument", null],
  ["python3 script.py", null, null],
  ["python3 -m pytest -q", null, null],
  ["python3 -m venv .venv", null, null],
  ["node script.js", null, null],
  ["deno test -A", null, null],
  ["deno run -A script.ts", null, null],
  ["deno fmt --check", null, null],
  ["deno task build", null, null],
  ["perl script.pl", null, null],
];
