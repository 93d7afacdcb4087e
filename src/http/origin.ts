/**
 * DNS-rebinding defence: `Host` must be the bound address (on loopback also `localhost`, `127.0.0.1`, `[::1]`) and
 * port, an `Origin` one of those names. A wildcard bind cannot know its names: Host is free, Origin must match it, and
 * the token it always requires (no --http-no-auth off loopback) is what a rebinding page lacks.
 */
import { isLoopbackHost } from "../config.ts";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARD_HOSTS = ["0.0.0.0", "::", "[::]"];

/** `host[:port]` of a Host header or URL authority, split; the port defaults to 80. */
function splitAuthority(authority: string): { name: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?$/.exec(authority.trim());
  if (!match) return null;
  return { name: match[1].toLowerCase(), port: match[2] === undefined ? 80 : Number(match[2]) };
}

/** Validates Host and Origin for a server bound to one address. */
export class OriginCheck {
  readonly #port: number;
  /** Host names accepted, or null for a wildcard bind. */
  readonly #names: readonly string[] | null;

  constructor(bind: { host: string; port: number }) {
    this.#port = bind.port;
    const literal = bind.host.includes(":") ? `[${bind.host.toLowerCase()}]` : bind.host.toLowerCase();
    if (WILDCARD_HOSTS.includes(bind.host)) this.#names = null;
    else if (isLoopbackHost(bind.host)) this.#names = [...new Set([...LOOPBACK_NAMES, literal])];
    else this.#names = [literal];
  }

  /** Why this request must be refused (answered 403), or null when it may proceed. */
  problem(request: Request): string | null {
    const hostHeader = request.headers.get("host");
    if (hostHeader === null) return "Host header missing";
    const host = splitAuthority(hostHeader);
    if (host === null) return `Host header ${JSON.stringify(hostHeader)} is malformed`;
    if (this.#names !== null && (!this.#names.includes(host.name) || host.port !== this.#port)) {
      return `Host ${JSON.stringify(hostHeader)} is not this server`;
    }
    const origin = request.headers.get("origin");
    if (origin === null) return null;
    const url = URL.parse(origin);
    const allowed = (url?.protocol === "http:" || url?.protocol === "https:") &&
      (this.#names === null
        ? url.host.toLowerCase() === hostHeader.toLowerCase()
        : this.#names.includes(url.hostname.toLowerCase()));
    return allowed ? null : `Origin ${JSON.stringify(origin)} is not allowed`;
  }
}
