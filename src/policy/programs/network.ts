/**
 * What reaches the network by name or by address: network clients (curl,
 * ssh, npx, …) whatever their arguments, any command's words that are
 * network URLs or `user@host:` remotes, and rsync to or from a host.
 * Package managers' subcommands are packages.ts's, git's are git.ts's.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * URLS.check({ program: "deno", name: "deno", args: ["run", "https://x/y.ts"], places });
 * // [{ kind: "refusal", rule: "network.url", token: "https://x/y.ts", … }]
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/**
 * Network clients: any use is refused.
 *
 * @example
 * ```ts
 * NETWORK_CLIENTS.covers("ssh"); // true
 * ```
 */
export const NETWORK_CLIENTS: ProgramRules = {
  covers: named([
    "curl",
    "wget",
    "wget2",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "lftp",
    "tftp",
    "mosh",
    "ping",
    "ping6",
    "dig",
    "nslookup",
    "host",
    "whois",
    "traceroute",
    "tracepath",
    "mtr",
    "aria2c",
    "axel",
    "http",
    "https",
    "xh",
    "lynx",
    "links",
    "w3m",
    "elinks",
    "rclone",
    "s3cmd",
    "gsutil",
    "aws",
    "az",
    "gcloud",
    "kubectl",
    "helm",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "ssh-keyscan",
    "ssh-copy-id",
    "openssl",
    "nmap",
    "tcpdump",
  ]),
  check: ({ program }: Call) => [refusal("network.command", program, `${program} is a network client`)],
  examples: { refused: [["kubectl get pods", "network.command"]], allowed: ["curly"] },
};

/** URL schemes that mean network. */
const NETWORK_URL = /^(https?|ftps?|sftp|scp|ssh|git|git\+ssh|rsync|telnet|wss?|s3|gs|tcp|udp):\/\//i;
/** scp-like `user@host:path` remotes (git, rsync). */
const SCP_REMOTE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/;

/**
 * Words of any command, a wrapper's included, that are network addresses (also as `--opt=value`).
 *
 * @example
 * ```ts
 * URLS.covers("anything"); // true
 * ```
 */
export const URLS: ProgramRules = {
  covers: () => true,
  check: ({ args }: Call) =>
    args.filter((arg) => {
      const value = arg.slice(arg.indexOf("=") + 1);
      return [arg, value].some((word) => NETWORK_URL.test(word) || SCP_REMOTE.test(word));
    }).map((arg) => refusal("network.url", arg, `${arg} is a network address`)),
  examples: {
    refused: [["pip download --index-url=https://x y", "network.url"], ["cp a me@host:b", "network.url"]],
    allowed: ["cat https.txt", "echo user@host"],
  },
};

/**
 * rsync: a `host:path` operand is a remote.
 *
 * @example
 * ```ts
 * RSYNC.covers("rsync"); // true
 * ```
 */
export const RSYNC: ProgramRules = {
  covers: named(["rsync"]),
  check: ({ args }: Call): Finding[] => [
    ...args.filter((arg) => /^[^/.-][^/]*:/.test(arg)).map((arg) =>
      refusal("network.remote", arg, `rsync to or from the host ${arg}`)
    ),
    pathWords(args),
  ],
  examples: {
    refused: [["rsync -a backup:x src", "network.remote"]],
    allowed: ["rsync -a src/ build/", "rsync ./a:b ."],
  },
};

/**
 * The corpus rows of the network clients, URLs and rsync (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["curl https://example.com", "network.command", null],
  ["curl -o out.html example.com", "network.command", null],
  ["wget example.com", "network.command", null],
  ["nc -l 8080", "network.command", null],
  ["ncat 127.0.0.1 80", "network.command", null],
  ["socat - TCP:127.0.0.1:80", "network.command", null],
  ["telnet localhost 25", "network.command", null],
  ["ssh user@host", "network.command", null],
  ["scp a.txt host:b.txt", "network.command", null],
  ["sftp host", "network.command", null],
  ["ping -c1 127.0.0.1", "network.command", null],
  ["dig example.com", "network.command", null],
  ["nslookup example.com", "network.command", null],
  ["/usr/bin/curl example.com", "network.command", null],
  ["npx cowsay hi", "network.command", null],
  ["openssl s_client -connect host:443", "network.command", null],
  ["git clone https://github.com/a/b", "network.url", null],
  ["deno run https://example.com/x.ts", "network.url", null],
  ["git remote add origin git@github.com:a/b.git", "network.url", null],
  ["python3 tool.py --url=http://x", "network.url", null],
  ["rsync -a src/ host:backup/", "network.remote", null],
  ["rsync rsync://host/module .", "network.url", null],
];
