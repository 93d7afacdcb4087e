/**
 * Wrappers: programs that run another command (env, timeout, nice, xargs,
 * flock, watch, …). The walker unwraps them and checks the inner command
 * like any other; their own option values are path words, and the ones
 * that hand their argument to a shell are inline scripts.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * wrapperFindings({ program: "timeout", name: "timeout", args: ["-s", "KILL", "5", "make"], places });
 * // [{ kind: "paths", words: ["KILL", "5"] }, { kind: "command", argv: ["make"] }]
 * ```
 */
import { type Call, type Finding, pathWords, refusal, secretName } from "./gate_findings.ts";
import { ASSIGNMENT } from "./gate_shell.ts";

/** How a wrapper's own words precede the command it runs. */
interface WrapperSpec {
  /** Options whose value is the next word. */
  valueOptions?: readonly string[];
  /** Positional words before the command (timeout's DURATION, flock's lock file, …). */
  positionals?: number;
  /** Options that mean "the next word is shell code" (env's split string is one argv). */
  shellOptions?: readonly string[];
  /** Runs its arguments through `sh -c` unless one of these options is given. */
  shellUnless?: readonly string[];
  /** Takes NAME=value assignments before the command (env). */
  assignments?: boolean;
}

const WRAPPERS = new Map<string, WrapperSpec>([
  ["env", {
    valueOptions: ["-u", "--unset", "-C", "--chdir", "-a", "--argv0"],
    shellOptions: ["-S", "--split-string"],
    assignments: true,
  }],
  ["nice", { valueOptions: ["-n", "--adjustment"] }],
  ["nohup", {}],
  ["timeout", { valueOptions: ["-s", "--signal", "-k", "--kill-after"], positionals: 1 }],
  ["time", { valueOptions: ["-o", "--output", "-f", "--format"] }],
  ["stdbuf", { valueOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] }],
  ["ionice", { valueOptions: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] }],
  ["chrt", { positionals: 1 }],
  ["taskset", { positionals: 1 }],
  ["setsid", {}],
  ["command", {}],
  ["builtin", {}],
  ["exec", { valueOptions: ["-a"] }],
  ["xargs", {
    valueOptions: [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-e",
      "-I",
      "-L",
      "-l",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ],
  }],
  ["flock", {
    valueOptions: ["-w", "--timeout", "-E", "--conflict-exit-code"],
    positionals: 1,
    shellOptions: ["-c", "--command"],
  }],
  ["watch", {
    valueOptions: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
    shellUnless: ["-x", "--exec"],
  }],
  ["script", {
    valueOptions: ["-E", "--echo", "-I", "-O", "-B", "-T", "--log-io", "--log-in", "--log-out"],
    shellOptions: ["-c", "--command"],
  }],
  ["strace", { valueOptions: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-X"] }],
  ["ltrace", { valueOptions: ["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-x"] }],
  ["valgrind", {}],
  ["catchsegv", {}],
  ["entr", { shellOptions: ["-s"] }],
  ["unbuffer", {}],
  ["fakeroot", {}],
  ["parallel", { shellUnless: [] }],
  ["busybox", {}],
]);

/**
 * Whether a program is a wrapper.
 *
 * @example
 * ```ts
 * isWrapper("nohup"); // true
 * ```
 */
export function isWrapper(name: string): boolean {
  return WRAPPERS.has(name);
}

/** Whether `arg` gives `option`: exactly, as `--opt=value`, attached (`-Svalue`) or ending a short cluster (`-qc`). */
function matchesOption(arg: string, option: string): boolean {
  if (arg === option || arg.startsWith(`${option}=`)) return true;
  if (option.startsWith("--") || arg.startsWith("--")) return false;
  return arg.startsWith(option) || new RegExp(`^-[A-Za-z]*${option.slice(1)}$`).test(arg);
}

/** The code a shell option gives: the next word, or its `=value` or attached value. */
function shellCode(args: readonly string[], i: number, option: string): string {
  const arg = args[i];
  if (arg === option || /^-[A-Za-z]+$/.test(arg)) return args[i + 1] ?? "";
  return arg.startsWith(`${option}=`) ? arg.slice(option.length + 1) : arg.slice(option.length);
}

/**
 * The findings of one wrapper call (`isWrapper(call.name)`): its own words, then what it runs.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * wrapperFindings({ program: "watch", name: "watch", args: ["ls"], places })[1];
 * // { kind: "refusal", rule: "inline_script.wrapper", token: "watch", … }
 * ```
 */
export function wrapperFindings({ program, name, args }: Call): Finding[] {
  const spec = WRAPPERS.get(name)!;
  const findings: Finding[] = [];
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
      const code = shellCode(args, i, shellOption);
      findings.push(
        refusal("inline_script.wrapper", `${program} ${shellOption}`, `${program} ${shellOption} runs shell code`),
        name === "env" ? { kind: "command", argv: code.split(/\s+/).filter(Boolean) } : { kind: "shell", code },
      );
      return findings;
    }
    if (spec.valueOptions?.includes(arg)) {
      own.push(args[++i] ?? "");
    } else if (arg.startsWith("-") && arg !== "-") {
      own.push(arg);
    } else if (spec.assignments && ASSIGNMENT.test(arg)) {
      findings.push(...secretName("secret_env.inline", arg.split("=", 1)[0]));
    } else if (positionals-- > 0) {
      own.push(arg);
    } else break;
  }
  findings.push(pathWords(own));
  const inner = args.slice(i);
  if (spec.shellUnless && !args.slice(0, i).some((arg) => spec.shellUnless!.includes(arg))) {
    findings.push(
      refusal("inline_script.wrapper", program, `${program} runs its arguments through sh -c`),
      { kind: "shell", code: inner.join(" ") },
    );
    return findings;
  }
  findings.push({ kind: "command", argv: inner });
  return findings;
}
