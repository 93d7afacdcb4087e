/**
 * The bypass corpus: commands with the rule that must refuse them in safe
 * mode and in trusted mode (null: the mode lets them run). Each program
 * module keeps its own rows beside its rules (`corpus` in programs/*.ts);
 * the rows here are the walker's — shell syntax, wrappers, shells, eval,
 * assignments, the env argument and the path words of programs without
 * rules. gate_test.ts checks every entry against {@linkcode corpusTree};
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
import { PROGRAMS } from "./programs/mod.ts";
import type { CorpusEntry } from "./programs/program.ts";

export type { CorpusEntry };

/**
 * The tree the corpus runs in: a workspace with `outlink` → /etc and `inlink` → src.
 *
 * @example
 * ```ts
 * corpusTree("/corpus", "/tmp/t").symlinks; // { "/corpus/outlink": "/etc", "/corpus/inlink": "/corpus/src" }
 * ```
 */
export function corpusTree(workspace: string, tmpdir: string): DescribedTree {
  return {
    workspace,
    tmpdir,
    symlinks: { [`${workspace}/outlink`]: "/etc", [`${workspace}/inlink`]: `${workspace}/src` },
  };
}

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
  // what shells, eval and wrappers run is checked like any other command
  ["sh -c 'git reset --hard'", "destructive.git_discard", "destructive.git_discard"],
  ["bash -c 'cat /etc/passwd'", "outside_path.argument", null],
  ["nice bash -c 'kill 1'", "destructive.kill", "destructive.kill"],
  ["env -S 'rm -rf /'", "destructive.remove_outside", "destructive.remove_outside"],
  ["watch git clean -fdx", "destructive.git_discard", "destructive.git_discard"],
  ["flock lockfile -c 'pkill node'", "destructive.kill", "destructive.kill"],
  ["sudo rm -rf /", "destructive.remove_outside", "destructive.remove_outside"],
  ["eval ls", "shell_syntax.builtin", null],
];

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
  // left to the sandbox: it confines them as it confines a script file
  ["sh -c ls", null, null],
  ["bash -lc 'echo hi'", null, null],
  ["bash", null, null],
  ["python3 -c 'print(1)'", null, null],
  ["node -e 1", null, null],
  ["perl -e 'print 1'", null, null],
  ["awk 'BEGIN { system(\"id\") }'", null, null],
  ["sed -i s/a/b/ src/a.ts", null, null],
  ["dd if=src/a.ts of=b", null, null],
  ["git -c core.fsmonitor=./x status", null, null],
  ["curl-config --version", null, null],
];

/**
 * Shell code that trusted mode runs through the shell (safe mode refuses its syntax).
 *
 * @example
 * ```ts
 * TRUSTED_ONLY.some(([, , trusted]) => trusted === "destructive.git_discard"); // true
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
  ["sh -c 'rm -rf /'", "destructive.remove_outside", "destructive.remove_outside"],
  ["bash -c \"sh -c 'git reset --hard'\"", "destructive.git_discard", "destructive.git_discard"],
  ["eval 'rm -rf /'", "shell_syntax.builtin", "destructive.remove_outside"],
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
  ["git status && docker ps", "shell_syntax.operator", "destructive.privilege"],
];

const PROGRAM_ROWS: CorpusEntry[] = PROGRAMS.flatMap((rules) => rules.corpus ?? []);

/**
 * Every row safe mode refuses.
 *
 * @example
 * ```ts
 * REFUSED_IN_SAFE.every(([, safe]) => safe !== null); // true
 * ```
 */
export const REFUSED_IN_SAFE: CorpusEntry[] = [...WALKER_REFUSED, ...PROGRAM_ROWS.filter(([, safe]) => safe !== null)];

/**
 * Every row safe mode runs.
 *
 * @example
 * ```ts
 * ALLOWED_IN_SAFE.every(([, safe]) => safe === null); // true
 * ```
 */
export const ALLOWED_IN_SAFE: CorpusEntry[] = [...WALKER_ALLOWED, ...PROGRAM_ROWS.filter(([, safe]) => safe === null)];
