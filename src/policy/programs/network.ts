/**
 * Network clients and package-manager subcommands, refused in safe mode only as an earlier word: its sandbox refuses
 * TCP (Landlock) and every socket but unix/netlink (seccomp) anyway. URLs in arguments are left to the sandbox.
 */
import { type Call, type CorpusEntry, type Finding, pathWords, type ProgramRules, refusal } from "./program.ts";

const CLIENTS = new Set(
  ("curl wget wget2 nc ncat netcat socat telnet ssh scp sftp ftp lftp tftp mosh ping ping6 dig nslookup host whois " +
    "traceroute mtr aria2c http xh rsync rclone s3cmd gsutil aws az gcloud kubectl helm npx pnpx bunx uvx pipx " +
    "ssh-keyscan ssh-copy-id openssl nmap").split(" "),
);

/** Each package manager's subcommands that download or publish. */
const SUBCOMMANDS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    npm: "install i ci add update upgrade publish exec x create init outdated audit",
    pnpm: "install i add update upgrade publish dlx create outdated audit",
    yarn: "install add upgrade publish dlx create outdated audit",
    bun: "install i add update upgrade x create publish",
    pip: "install download wheel search index",
    pip3: "install download wheel search index",
    uv: "add sync lock pip tool run",
    poetry: "install add update lock publish",
    cargo: "install fetch update publish search add",
    go: "get install download",
    gem: "install update push fetch",
    bundle: "install update add",
    composer: "install require update create-project",
    deno: "install add upgrade outdated",
    "apt-get": "install update upgrade dist-upgrade download source",
    apt: "install update upgrade full-upgrade download source",
    dnf: "install update upgrade download",
    brew: "install update upgrade fetch tap",
  }).map(([name, subs]) => [name, new Set(subs.split(" "))]),
);

/** The network rules, one module for clients and package managers. */
export const NETWORK: ProgramRules = {
  covers: (name) => CLIENTS.has(name) || Object.hasOwn(SUBCOMMANDS, name),
  check({ program, name, args }: Call): Finding[] {
    if (CLIENTS.has(name)) return [refusal("network.command", program, `${program} is a network client`)];
    const sub = args.find((arg) => !arg.startsWith("-")) ?? "";
    const findings = SUBCOMMANDS[name].has(sub)
      ? [refusal("network.subcommand", `${program} ${sub}`, `${program} ${sub} reaches the network`)]
      : [];
    return [...findings, pathWords(args)];
  },
  examples: {
    refused: [["kubectl get pods", "network.command"], ["npm --silent install x", "network.subcommand"]],
    allowed: ["npm run build", "go mod tidy", "deno test", "pip --version"],
  },
  corpus: [
    ["curl https://example.com", "network.command", null],
    ["curl -o out.html example.com", "network.command", null],
    ["wget example.com", "network.command", null],
    ["nc -l 8080", "network.command", null],
    ["socat - TCP:127.0.0.1:80", "network.command", null],
    ["ssh user@host", "network.command", null],
    ["scp a.txt host:b.txt", "network.command", null],
    ["rsync -a src/ host:backup/", "network.command", null],
    ["ping -c1 127.0.0.1", "network.command", null],
    ["dig example.com", "network.command", null],
    ["/usr/bin/curl example.com", "network.command", null],
    ["npx cowsay hi", "network.command", null],
    ["npm install left-pad", "network.subcommand", null],
    ["npm i", "network.subcommand", null],
    ["pnpm add zod", "network.subcommand", null],
    ["yarn add react", "network.subcommand", null],
    ["pip install requests", "network.subcommand", null],
    ["pip3 install -r requirements.txt", "network.subcommand", null],
    ["cargo install ripgrep", "network.subcommand", null],
    ["go get example.com/x", "network.subcommand", null],
    ["gem install rails", "network.subcommand", null],
    ["deno install -g x", "network.subcommand", null],
    ["apt-get install -y jq", "network.subcommand", null],
    ["npm run build", null, null],
    ["npm test", null, null],
    ["cargo build", null, null],
    ["go test ./...", null, null],
    ["pip list", null, null],
  ] satisfies CorpusEntry[],
};
