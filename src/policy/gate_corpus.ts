/**
 * The bypass corpus: commands with the rule that must refuse them in safe
 * mode and in trusted mode (null: the mode lets them run). Each program
 * module keeps its own rows beside its rules (`CORPUS` in programs/*.ts);
 * the rows here are the walker's — shell syntax, wrappers, shells, eval,
 * assignments, the env argument and the path words of programs without a
 * grammar. gate_test.ts checks every entry against {@linkcode corpusTree};
 * tests/policy_test.ts sends them through exec_command on disk.
 *
 * Paths: the corpus workspace has `src/`, `src/a.ts`, `outlink` (a symlink to
 * /etc) and `inlink` (a symlink to src); cwd is the workspace root.
 *
 * @example
 * ```ts
 * const [cmd, safe, trusted] = REFUSED_IN_SAFE[0];
 * ```
 */
import type { DescribedTree } from "./gate_paths.ts";
import type { RuleId } from "./rules.ts";
import { CORPUS as AWK } from "./programs/awk.ts";
import { CORPUS as DISK } from "./programs/disk.ts";
import { CORPUS as FIND } from "./programs/find.ts";
import { CORPUS as GIT } from "./programs/git.ts";
import { CORPUS as INTERPRETERS } from "./programs/interpreters.ts";
import { CORPUS as KILL } from "./programs/kill.ts";
import { CORPUS as NETWORK } from "./programs/network.ts";
import { CORPUS as PACKAGES } from "./programs/packages.ts";
import { CORPUS as PERMISSIONS } from "./programs/permissions.ts";
import { CORPUS as PRIVILEGE } from "./programs/privilege.ts";
import { CORPUS as REMOVE } from "./programs/remove.ts";
import { CORPUS as SED } from "./programs/sed.ts";
import { CORPUS as SYSTEM } from "./programs/system.ts";

/**
 * One corpus entry: [cmd, rule in safe mode, rule in trusted mode, env argument?].
 *
 * @example
 * ```ts
 * const entry: CorpusEntry = ["ls", "secret_env.env", "secret_env.env", { LD_PRELOAD: "x" }];
 * ```
 */
export type CorpusEntry = [cmd: string, safe: RuleId | null, trusted: RuleId | null, env?: Record<string, string>];

/**
 * The corpus workspace as a described tree, rooted at `workspace`.
 *
 * @example
 * ```ts
 * corpusTree("/corpus", "/tmp/corpus-tmp").symlinks; // { "/corpus/outlink": "/etc", "/corpus/inlink": "/corpus/src" }
 * ```
 */
export function corpusTree(workspace: string, tmpdir: string): DescribedTree {
  return {
    workspace,
    tmpdir,
    symlinks: { [`${workspace}/outlink`]: "/etc", [`${workspace}/inlink`]: `${workspace}/src` },
  };
}

/** The walker's commands safe mode must refuse (and what trusted does with them). */
const WALKER_REFUSED: CorpusEntry[] = [
  // wrappers around network clients
  ["timeout 5 curl example.com", "network.command", null],
  ["env curl example.com", "network.command", null],
  ["nice -n 5 wget x", "network.command", null],
  ["xargs curl", "network.command", null],
  // shell expansion and control syntax
  ["ls; rm x", "shell_syntax.operator", null],
  ["ls && ls", "shell_syntax.operator", null],
  ["false || ls", "shell_syntax.operator", null],
  ["ls | wc -l", "shell_syntax.operator", null],
  ["ls > out.txt", "shell_syntax.operator", null],
  ["ls >> out.txt", "shell_syntax.operator", null],
  ["wc -l < src/a.ts", "shell_syntax.operator", null],
  ["sleep 10 &", "shell_syntax.operator", null],
  ["(ls)", "shell_syntax.operator", null],
  ["ls |& cat", "shell_syntax.operator", null],
  ["ls 2>&1", "shell_syntax.operator", null],
  ["ls &> out", "shell_syntax.operator", null],
  ["ls\nrm x", "shell_syntax.operator", null],
  ["cat <<EOF\nhi\nEOF", "shell_syntax.heredoc", null],
  ["cat <<< hi", "shell_syntax.operator", null],
  ["echo $HOME", "shell_syntax.expansion", null],
  ["echo ${HOME}", "shell_syntax.expansion", null],
  ['echo "$HOME"', "shell_syntax.expansion", null],
  ["echo $(id)", "shell_syntax.expansion", null],
  ['echo "$(id)"', "shell_syntax.expansion", null],
  ["echo `id`", "shell_syntax.expansion", null],
  ["echo $((1+2))", "shell_syntax.expansion", null],
  ["diff <(ls) <(ls src)", "shell_syntax.expansion", null],
  ["ls *.ts", "shell_syntax.expansion", null],
  ["ls src/?.ts", "shell_syntax.expansion", null],
  ["ls [ab].ts", "shell_syntax.expansion", null],
  ["echo {a,b}", "shell_syntax.expansion", null],
  ["echo {1..3}", "shell_syntax.expansion", null],
  ["ls ~", "shell_syntax.expansion", null],
  ["ls ~/.ssh", "shell_syntax.expansion", null],
  ["echo $0", "shell_syntax.expansion", null],
  ["ls # comment", "shell_syntax.comment", null],
  ["if true; then ls; fi", "shell_syntax.operator", null],
  ["cd src", "shell_syntax.builtin", null],
  ["export FOO=1", "shell_syntax.builtin", null],
  ["source ./env.sh", "shell_syntax.builtin", null],
  [". ./env.sh", "shell_syntax.builtin", null],
  ["for", "shell_syntax.builtin", null],
  ["FOO=1", "shell_syntax.assignment_only", null],
  ["echo 'unterminated", "shell_syntax.unparsable", "shell_syntax.unparsable"],
  ['echo "open', "shell_syntax.unparsable", "shell_syntax.unparsable"],
  ["echo $(ls", "shell_syntax.unparsable", "shell_syntax.unparsable"],
  // inline scripts and the wrappers that hide them
  ["sh -c ls", "inline_script.shell", null],
  ["bash -c 'echo hi'", "inline_script.shell", null],
  ["bash -lc 'echo hi'", "inline_script.shell", null],
  ["zsh -c ls", "inline_script.shell", null],
  ["dash -ec ls", "inline_script.shell", null],
  ["/bin/sh -c ls", "inline_script.shell", null],
  ["bash", "inline_script.shell", null],
  ["sh -s", "inline_script.shell", null],
  ["bash -i", "inline_script.shell", null],
  ["sh /dev/stdin", "inline_script.shell", null],
  ["bash /proc/self/fd/0", "inline_script.shell", null],
  ["eval ls", "inline_script.eval", null],
  ["env sh -c ls", "inline_script.shell", null],
  ["env -i bash -c ls", "inline_script.shell", null],
  ["env -S 'sh -c ls'", "inline_script.wrapper", null],
  ["nice bash -c ls", "inline_script.shell", null],
  ["nohup python3 -c 'import os'", "inline_script.interpreter", null],
  ["timeout 5 sh -c ls", "inline_script.shell", null],
  ["timeout -s KILL 5 node -e 1", "inline_script.interpreter", null],
  ["stdbuf -oL bash -c ls", "inline_script.shell", null],
  ["setsid sh -c ls", "inline_script.shell", null],
  ["xargs sh -c 'rm $0'", "inline_script.shell", null],
  ["xargs -I {} bash -c 'echo {}'", "inline_script.shell", null],
  ["xargs -0 -n1 perl -e 'print 1'", "inline_script.interpreter", null],
  ["env timeout 5 nice sh -c ls", "inline_script.shell", null],
  ["busybox sh -c ls", "inline_script.shell", null],
  ["watch ls", "inline_script.wrapper", null],
  ["flock lockfile -c 'id'", "inline_script.wrapper", null],
  ["script -qc id /dev/null", "inline_script.wrapper", null],
  ["command bash -c ls", "inline_script.shell", null],
  // wrappers around destructive commands (trusted keeps these)
  ["xargs rm -rf /", "destructive.remove_outside", "destructive.remove_outside"],
  ["timeout 5 rm -rf /", "destructive.remove_outside", "destructive.remove_outside"],
  // arguments naming paths outside the workspace
  ["cat /etc/passwd", "outside_path.argument", null],
  ["ls /", "outside_path.argument", null],
  ["ls ..", "outside_path.argument", null],
  ["cat ../../etc/passwd", "outside_path.argument", null],
  ["cat src/../../x", "outside_path.argument", null],
  ["cat outlink/passwd", "outside_path.argument", null],
  ["ls outlink", "outside_path.argument", null],
  ["cp src/a.ts /tmp/x", "outside_path.argument", null],
  ["grep -r root /etc", "outside_path.argument", null],
  ["tar -cf /var/tmp/x.tar src", "outside_path.argument", null],
  ["gcc -o/usr/local/bin/x a.c", "outside_path.argument", null],
  ["cc -I/usr/include a.c", "outside_path.argument", null],
  ["ln -s /etc/passwd p", "outside_path.argument", null],
  ["bash /etc/profile", "outside_path.argument", null],
  ["env -C /etc ls", "outside_path.argument", null],
  ["timeout 5 cat /etc/shadow", "outside_path.argument", null],
  ["make -C /usr/src", "outside_path.argument", null],
  ["tee /etc/motd", "outside_path.argument", null],
  // secret and loader environment
  ["ls", "secret_env.env", "secret_env.env", { LD_PRELOAD: "/tmp/x.so" }],
  ["ls", "secret_env.env", "secret_env.env", { LD_LIBRARY_PATH: "/tmp" }],
  ["ls", "secret_env.env", "secret_env.env", { DYLD_INSERT_LIBRARIES: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { NODE_OPTIONS: "--require x" }],
  ["ls", "secret_env.env", "secret_env.env", { BASH_ENV: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { ENV: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { GIT_SSH_COMMAND: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { PYTHONSTARTUP: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { GITHUB_TOKEN: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { AWS_SECRET_ACCESS_KEY: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { OPENAI_API_KEY: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { DB_PASSWORD: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { MY_SECRET: "x" }],
  ["ls", "secret_env.env", "secret_env.env", { BASH_FUNC_x: "() { id; }" }],
  ["LD_PRELOAD=/tmp/x.so ls", "secret_env.inline", "secret_env.inline"],
  ["FOO=1 NODE_OPTIONS=--inspect node x.js", "secret_env.inline", "secret_env.inline"],
  ["GIT_SSH_COMMAND=x git status", "secret_env.inline", "secret_env.inline"],
  ["AWS_ACCESS_KEY_ID=x aws s3 ls", "secret_env.inline", "secret_env.inline"],
  ["env LD_PRELOAD=x ls", "secret_env.inline", "secret_env.inline"],
  ["env -i DYLD_LIBRARY_PATH=x ls", "secret_env.inline", "secret_env.inline"],
  ["env GH_TOKEN=x gh pr list", "secret_env.inline", "secret_env.inline"],
  ["timeout 5 env PYTHONPATH=. python3 x.py", "secret_env.inline", "secret_env.inline"],
  ["env GIT_CONFIG_KEY_0=core.pager git log", "secret_env.inline", "secret_env.inline"],
];

/** The walker's commands safe mode must let run (trusted too, unless noted). */
const WALKER_ALLOWED: CorpusEntry[] = [
  ["ls", null, null],
  ["ls -la src", null, null],
  ["ls -la inlink", null, null],
  ["cat src/a.ts", null, null],
  ["head -n 5 src/a.ts", null, null],
  ["tail -n 5 src/a.ts", null, null],
  ["wc -l src/a.ts", null, null],
  ["grep -rn TODO src", null, null],
  ["grep -n 'a*b' src/a.ts", null, null],
  ["grep -rn '/api/' src", null, null],
  ["rg -n 'foo|bar' src", null, null],
  ["echo hello world", null, null],
  ["echo 'a | b ; c $HOME'", null, null],
  ['echo "quoted \\"inner\\""', null, null],
  ["printf '%s\\n' a b", null, null],
  ["mkdir -p build/out", null, null],
  ["touch build/x", null, null],
  ["cp src/a.ts src/b.ts", null, null],
  ["mv src/b.ts src/c.ts", null, null],
  ["bash script.sh", null, null],
  ["sh ./script.sh arg", null, null],
  ["make", null, null],
  ["make -j2 test", null, null],
  ["sort -u src/a.ts", null, null],
  ["diff src/a.ts src/a.ts", null, null],
  ["tar -czf build.tgz src", null, null],
  ["env", null, null],
  ["env FOO=1 node script.js", null, null],
  ["FOO=1 BAR=2 node script.js", null, null],
  ["timeout 5 python3 script.py", null, null],
  ["nice -n 10 make", null, null],
  ["xargs -n1 echo", null, null],
  ["cat /dev/null", null, null],
  ["head -c 16 /dev/urandom", null, null],
  ["uname -a", null, null],
  ["which python3", null, null],
  ["/usr/bin/env python3 script.py", null, null],
  ["id", null, null],
  ["date", null, null],
  ["ls", null, null, { FOO: "1", CI: "true" }],
  ["node script.js", null, null, { NODE_ENV: "test", PATH: "/usr/bin:/bin" }],
];

/**
 * Shell-mode commands trusted must refuse or run, beyond the safe entries' counterparts.
 *
 * @example
 * ```ts
 * TRUSTED_ONLY.filter(([, , trusted]) => trusted !== null).length;
 * ```
 */
export const TRUSTED_ONLY: CorpusEntry[] = [
  ["ls | wc -l && echo done", "shell_syntax.operator", null],
  ['for f in *.ts; do wc -l "$f"; done', "shell_syntax.expansion", null],
  ["echo $HOME > out.txt", "shell_syntax.expansion", null],
  ["curl -s http://127.0.0.1:8000/health | jq .", "shell_syntax.operator", null],
  ["ls; rm -rf /", "shell_syntax.operator", "destructive.remove_outside"],
  ["true && git reset --hard", "shell_syntax.operator", "destructive.git_discard"],
  ["echo $(rm -rf /)", "shell_syntax.expansion", "destructive.remove_outside"],
  ["echo `git clean -fdx`", "shell_syntax.expansion", "destructive.git_discard"],
  ["cat <(rm -rf /etc)", "shell_syntax.expansion", "destructive.remove_outside"],
  ["sh -c 'rm -rf /'", "inline_script.shell", "destructive.remove_outside"],
  ["bash -c \"sh -c 'git reset --hard'\"", "inline_script.shell", "destructive.git_discard"],
  ["eval 'rm -rf /'", "inline_script.eval", "destructive.remove_outside"],
  ["rm -rf $HOME", "shell_syntax.expansion", "destructive.remove_outside"],
  ["rm -rf ~", "shell_syntax.expansion", "destructive.remove_outside"],
  ['rm -rf "$DIR"/', "shell_syntax.expansion", "destructive.remove_outside"],
  ["rm -rf /*", "shell_syntax.expansion", "destructive.remove_outside"],
  ["rm -rf *", "shell_syntax.expansion", "destructive.remove_outside"],
  ["export LD_PRELOAD=/tmp/x.so; ls", "shell_syntax.operator", "secret_env.inline"],
  ["FOO=1 && AWS_SECRET_ACCESS_KEY=x aws s3 ls", "shell_syntax.operator", "secret_env.inline"],
  ["ls | xargs rm -rf /", "shell_syntax.operator", "destructive.remove_outside"],
  ["find . -name x | xargs kill -9", "shell_syntax.operator", null],
  ["sleep 1 & kill $!", "shell_syntax.operator", null],
  ["ls && pkill node", "shell_syntax.operator", "destructive.kill"],
  ["cat <<EOF\nrm -rf /\nEOF", "shell_syntax.heredoc", null],
  ["echo hi # rm -rf /", "shell_syntax.comment", null],
  ["echo x > /etc/passwd", "shell_syntax.operator", null],
  ["git status && sudo ls", "shell_syntax.operator", "destructive.privilege"],
];

const PROGRAM_ROWS: CorpusEntry[] = [
  ...NETWORK,
  ...PACKAGES,
  ...GIT,
  ...INTERPRETERS,
  ...AWK,
  ...SED,
  ...FIND,
  ...REMOVE,
  ...PERMISSIONS,
  ...DISK,
  ...SYSTEM,
  ...KILL,
  ...PRIVILEGE,
];

/**
 * Commands safe mode must refuse (and what trusted does with them).
 *
 * @example
 * ```ts
 * REFUSED_IN_SAFE.every(([, safe]) => safe !== null); // true
 * ```
 */
export const REFUSED_IN_SAFE: CorpusEntry[] = [...WALKER_REFUSED, ...PROGRAM_ROWS.filter(([, safe]) => safe !== null)];

/**
 * Commands safe mode must let run (trusted too, unless noted).
 *
 * @example
 * ```ts
 * ALLOWED_IN_SAFE.every(([, safe]) => safe === null); // true
 * ```
 */
export const ALLOWED_IN_SAFE: CorpusEntry[] = [...WALKER_ALLOWED, ...PROGRAM_ROWS.filter(([, safe]) => safe === null)];
