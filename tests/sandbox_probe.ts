/**
 * A bash script that tries to escape the sandbox and prints one line per
 * attempt (`name=ok` or `name=denied`), plus a loopback TCP listener for it
 * to connect to. Used by the Landlock proofs at domain level
 * (src/policy/sandbox_test.ts) and through exec_command (tests/landlock_test.ts).
 *
 * @example
 * await using target = await probeTargets();
 * await Deno.writeTextFile(`${ws}/probe.sh`, target.script);
 */

/** Where the probe writes and connects, and the script that does it. */
export interface ProbeTargets extends AsyncDisposable {
  script: string;
  port: number;
  /** Outside files the probe may have created (removed on dispose). */
  outside: string[];
}

/** Parses the probe's output into { name: "ok" | "denied" }. */
export function parseProbe(output: string): Record<string, string> {
  return Object.fromEntries(
    output.split("\n").filter((line) => /^[a-z0-9_]+=(ok|denied)$/.test(line)).map((line) => line.split("=")),
  );
}

/** Starts a loopback listener and writes the probe script for it. */
export function probeTargets(): ProbeTargets {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const accepting = (async () => {
    for await (const connection of listener) connection.close();
  })().catch(() => {});
  const tag = `workcell-probe-${crypto.randomUUID()}`;
  const home = Deno.env.get("HOME") ?? "/root";
  const outside = [`${home}/${tag}`, `/etc/${tag}`, `/var/tmp/${tag}`];
  const attempt = (name: string, command: string) =>
    `if ${command} 2>/dev/null; then echo ${name}=ok; else echo ${name}=denied; fi`;
  const script = [
    attempt("workspace", "echo x > ./probe-written"),
    attempt("tmpdir", 'echo x > "$TMPDIR/probe-written"'),
    attempt("home", `echo x > ${outside[0]}`),
    attempt("etc", `echo x > ${outside[1]}`),
    attempt("var_tmp", `echo x > ${outside[2]}`),
    attempt("mkdir_outside", `mkdir ${outside[2]}.d`),
    attempt("tcp", `exec 3<>/dev/tcp/127.0.0.1/${port}`),
    // A grandchild (a subshell in the background) is in the same domain.
    `( ${attempt("grandchild_etc", `echo x > ${outside[1]}.grandchild`)} ) & wait`,
    attempt("dev_null", "echo x > /dev/null"),
    "",
  ].join("\n");
  outside.push(`${outside[2]}.d`, `${outside[1]}.grandchild`);
  return {
    script,
    port,
    outside,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const file of outside) await Deno.remove(file, { recursive: true }).catch(() => {});
    },
  };
}
