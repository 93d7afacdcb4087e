/** Wrappers and shells: what they run is walked like any other command, and the sandbox confines it like a script. */
import { sensitiveEnvKind } from "./child_environment.ts";
import { type Call, type Finding, pathWords, refusal } from "./programs/program.ts";

/** `NAME=value`. */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The shells: `sh -c CODE` is walked as shell code, `sh script` confined like any script. */
export const SHELLS = new Set("sh bash zsh dash ksh mksh ash fish csh tcsh rbash yash busybox".split(" "));
/** Per wrapper: options that take a value, positionals before the command, options whose value is shell code. */
export const WRAPPERS = new Map<string, { values?: string; positionals?: number; shell?: string; allShell?: boolean }>([
  ["env", { values: "-u --unset -C --chdir -a --argv0", shell: "-S --split-string" }],
  ["nice", { values: "-n --adjustment" }],
  ["timeout", { values: "-s --signal -k --kill-after", positionals: 1 }],
  ["time", { values: "-o --output -f --format" }],
  ["stdbuf", { values: "-i -o -e --input --output --error" }],
  ["ionice", { values: "-c --class -n --classdata" }],
  ["chrt", { positionals: 1 }],
  ["taskset", { positionals: 1 }],
  ["exec", { values: "-a" }],
  ["xargs", { values: "-a --arg-file -d --delimiter -E -e -I -L -l -n --max-args -P --max-procs -s --max-chars" }],
  ["flock", { values: "-w --timeout -E", positionals: 1, shell: "-c --command" }],
  ["watch", { values: "-n --interval", allShell: true }],
  ["script", { values: "-E --echo -O -B -T", shell: "-c --command" }],
  ["strace", { values: "-o -e -p -s -u -E" }],
  ["ltrace", { values: "-o -e -p -s -u -n" }],
  ["parallel", { allShell: true }],
  ...["nohup", "setsid", "command", "builtin", "valgrind", "unbuffer", "fakeroot", "sudo", "doas"].map((name) =>
    [name, {}] as const
  ),
]);

/**
 * A wrapper's own words (path words), and the command or shell code it runs.
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 * const places = new Places("/w", "/w", describedPaths({ workspace: "/w", tmpdir: "/tmp/t" }));
 * wrapperFindings({ program: "timeout", name: "timeout", args: ["5", "ls"], places });
 * // [{ kind: "paths", words: ["5"] }, { kind: "command", argv: ["ls"] }]
 * ```
 */
export function wrapperFindings({ name, args }: Call): Finding[] {
  const spec = WRAPPERS.get(name)!;
  const values = (spec.values ?? "").split(" ");
  const own: string[] = [];
  const secrets: Finding[] = [];
  let positionals = spec.positionals ?? 0;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    const shell = spec.shell?.split(" ").find((option) => arg === option || arg.startsWith(`${option}=`));
    if (arg === "--") {
      i++;
      break;
    } else if (shell !== undefined) {
      const code = arg === shell ? args[i + 1] ?? "" : arg.slice(shell.length + 1);
      return [...secrets, pathWords(own), { kind: "shell", code }];
    } else if (values.includes(arg)) own.push(args[++i] ?? "");
    else if (arg.startsWith("-") && arg !== "-") own.push(arg);
    else if (name === "env" && ASSIGNMENT.test(arg)) {
      secrets.push(...secretName("secret_env.inline", arg.split("=", 1)[0]));
    } else if (positionals-- > 0) own.push(arg);
    else break;
  }
  const inner = args.slice(i);
  const runs: Finding = spec.allShell ? { kind: "shell", code: inner.join(" ") } : { kind: "command", argv: inner };
  return [...secrets, pathWords(own), runs];
}

/**
 * A shell's findings: `sh -c CODE` runs CODE (walked as shell code), `sh script` a file (a path word).
 * @example
 * ```ts
 * shellFindings(["-c", "ls"]); // [{ kind: "shell", code: "ls" }]
 * ```
 */
export function shellFindings(args: readonly string[]): Finding[] {
  let i = 0;
  let inline = false;
  for (; i < args.length && /^[-+]/.test(args[i]) && args[i] !== "--" && args[i] !== "-"; i++) {
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(args[i])) inline = true;
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(args[i])) i++;
  }
  if (args[i] === "--" || args[i] === "-") i++;
  return inline ? [{ kind: "shell", code: args[i] ?? "" }] : [pathWords(args.slice(i))];
}

/**
 * A refusal when `name` is a secret-looking or loader variable.
 * @example
 * ```ts
 * secretName("secret_env.inline", "LD_PRELOAD")[0]; // { kind: "refusal", rule: "secret_env.inline", … }
 * ```
 */
export function secretName(rule: "secret_env.env" | "secret_env.inline", name: string): Finding[] {
  const kind = sensitiveEnvKind(name);
  const what = kind === "loader" ? "loader/code-injection" : "secret-looking";
  return kind ? [refusal(rule, name, `${name} is a ${what} variable`)] : [];
}
