/**
 * The peer MCP servers (and the Codex CLI) the benchmarks compare workcell
 * against, pinned, installed once with npm into bench/.data/peers (not
 * committed), and started over stdio through the same SDK client workcell
 * is driven with.
 *
 * @example
 * const dir = await ensurePeer(CODEX); // installs every pinned package if this one is missing
 * const { client, pid } = await connectPeer(PEERS.filesystem, workspace);
 */
import * as path from "node:path";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";

/** Where the peers are installed (gitignored with the rest of bench/.data). */
export const PEERS_DIR = new URL("./.data/peers", import.meta.url).pathname;

/** One pinned npm package. */
export interface Pinned {
  /** The npm package name. */
  package: string;
  /** The exact version installed. */
  version: string;
}

/** A pinned MCP server and how to start it over stdio. */
export interface Peer extends Pinned {
  /** The script node runs, relative to the package directory. */
  entry: string;
  /** Command-line arguments after the entry, for a server on `workspace`. */
  args(workspace: string): string[];
  /** Extra environment for a server on `workspace` (PATH and HOME are always passed; this may override HOME). */
  env(workspace: string): Promise<Record<string, string>>;
}

/** Every peer, pinned to the version the results were measured with. */
export const PEERS = {
  /** The reference filesystem server: read, list, search, edit. */
  filesystem: {
    package: "@modelcontextprotocol/server-filesystem",
    version: "2026.8.31",
    entry: "dist/index.js",
    args: (workspace) => [workspace],
    env: () => Promise.resolve({}),
  },
  /** Desktop Commander: processes, search, files. It keeps its config under HOME, so each start gets a fresh one. */
  desktopCommander: {
    package: "@wonderwhy-er/desktop-commander",
    version: "0.2.52",
    entry: "dist/index.js",
    args: () => ["--no-onboarding"],
    env: async () => ({ HOME: await Deno.makeTempDir({ prefix: "peer-home-" }) }),
  },
  /** The git MCP server, confined to the workspace through GIT_BASE_DIR. */
  git: {
    package: "@cyanheads/git-mcp-server",
    version: "2.15.3",
    entry: "dist/index.js",
    args: () => [],
    env: (workspace) =>
      Promise.resolve({ MCP_LOG_LEVEL: "error", GIT_BASE_DIR: workspace, MCP_TRANSPORT_TYPE: "stdio" }),
  },
} satisfies Record<string, Peer>;

/** The Codex CLI (not an MCP server): its native binary acts as `apply_patch` when so named (bench/patch_bench.ts). */
export const CODEX: Pinned = { package: "@openai/codex", version: "0.171.0" };

/** Everything installed together, so one npm run resolves one consistent tree. */
const PINNED: Pinned[] = [...Object.values(PEERS), CODEX];

/** The Codex CLI's native binary (installed with {@linkcode CODEX}). */
export const CODEX_BINARY = path.join(
  PEERS_DIR,
  "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
);

/** The installed package directory of `peer`. */
export function peerDir(peer: Pinned): string {
  return path.join(PEERS_DIR, "node_modules", peer.package);
}

async function installedVersion(peer: Pinned): Promise<string | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path.join(peerDir(peer), "package.json"))).version;
  } catch {
    return null;
  }
}

/**
 * Installs every pinned package in one npm run unless `peer` is already
 * there at its pinned version, and returns its package directory.
 * Desktop Commander needs its Puppeteer download and install scripts skipped
 * and its peer dependencies ignored, so all peers are installed that way.
 */
export async function ensurePeer(peer: Pinned): Promise<string> {
  if (await installedVersion(peer) !== peer.version) {
    console.error(`peers: installing ${PINNED.map((p) => `${p.package}@${p.version}`).join(" ")}`);
    await Deno.mkdir(PEERS_DIR, { recursive: true });
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-audit",
        "--no-fund",
        "--legacy-peer-deps",
        "--ignore-scripts",
        "--prefix",
        PEERS_DIR,
        ...PINNED.map((p) => `${p.package}@${p.version}`),
      ],
      env: { PUPPETEER_SKIP_DOWNLOAD: "1" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`npm install of the peers failed: ${new TextDecoder().decode(out.stderr)}`);
    const version = await installedVersion(peer);
    if (version !== peer.version) throw new Error(`${peer.package}: installed ${version}, pinned ${peer.version}`);
  }
  return peerDir(peer);
}

/** Installs `peer` if needed and returns the absolute path of the script node runs. */
export async function peerEntry(peer: Peer): Promise<string> {
  return path.join(await ensurePeer(peer), peer.entry);
}

/** A peer server started by {@linkcode connectPeer}. */
export interface PeerConnection {
  client: Client;
  /** The server process id (node itself), for /proc/<pid>/status. */
  pid: number;
  close(): Promise<void>;
}

/** Installs `peer` if needed, starts it on `workspace` under node and connects an SDK client. */
export async function connectPeer(peer: Peer, workspace: string): Promise<PeerConnection> {
  const entry = await peerEntry(peer);
  const transport = new StdioClientTransport({
    command: "node",
    args: [entry, ...peer.args(workspace)],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      ...await peer.env(workspace),
    },
    cwd: workspace,
    stderr: "ignore",
  });
  const client = new Client({ name: "workcell-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid!, close: () => client.close() };
}
