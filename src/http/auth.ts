import { timingSafeEqual } from "node:crypto";
import * as path from "node:path";
import { isLoopbackHost, UsageError } from "../config.ts";
import { jsonRpcError } from "./responses.ts";

/** Environment variable that may carry the token instead of --auth-token-file. */
export const AUTH_TOKEN_ENV = "WORKCELL_AUTH_TOKEN";
/** Shortest token accepted, in characters: a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;
/** The realm named in the `WWW-Authenticate` challenge. */
export const AUTH_REALM = "workcell";

/** What the token decision depends on (a subset of Config). */
export interface AuthSettings {
  authTokenFile: string | null;
  httpNoAuth: boolean;
  http: { host: string } | null;
}

/**
 * The bearer token (--auth-token-file or WORKCELL_AUTH_TOKEN, then unset: no child inherits it); null: --http-no-auth.
 * Without a usable one it throws a UsageError: main.ts prints it and exits 2.
 * @example
 * ```ts
 * await loadAuthToken({ authTokenFile: null, httpNoAuth: true, http: { host: "127.0.0.1" } }, "/"); // null
 * ```
 */
export async function loadAuthToken(settings: AuthSettings, cwd: string): Promise<string | null> {
  const fromEnv = Deno.env.get(AUTH_TOKEN_ENV);
  Deno.env.delete(AUTH_TOKEN_ENV);
  if (settings.httpNoAuth) return null;
  let token: string;
  let source: string;
  if (settings.authTokenFile !== null) {
    const file = path.resolve(cwd, settings.authTokenFile);
    source = `--auth-token-file ${file}`;
    try {
      token = (await Deno.readTextFile(file)).trim();
    } catch (error) {
      throw new UsageError(`cannot read ${source}: ${(error as Error).message}`);
    }
  } else if (fromEnv !== undefined) {
    source = AUTH_TOKEN_ENV;
    token = fromEnv.trim();
  } else {
    const host = settings.http?.host ?? "";
    const where = isLoopbackHost(host)
      ? "give --auth-token-file FILE or set WORKCELL_AUTH_TOKEN (or --http-no-auth, loopback only)"
      : `refusing to serve non-loopback host ${host} without one; give --auth-token-file FILE or set WORKCELL_AUTH_TOKEN`;
    throw new UsageError(`--http needs a bearer token: ${where}`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(
      `the bearer token from ${source} is ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} ` +
        "(e.g. `openssl rand -hex 32`)",
    );
  }
  if (/\s/.test(token)) throw new UsageError(`the bearer token from ${source} contains whitespace`);
  return token;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** The presented token of an `Authorization: Bearer …` header, or null. */
export function presentedToken(header: string | null): string | null {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? "");
  return match ? match[1] : null;
}

/** Checks requests against the one configured token. */
export class BearerGate {
  readonly #digest: Promise<Uint8Array>;

  /** A gate for `token` (only its SHA-256 digest is kept). */
  constructor(token: string) {
    this.#digest = sha256(token);
  }

  /** Whether the request carries the token; both are hashed first, so the time is the same whatever its length. */
  async accepts(request: Request): Promise<boolean> {
    const token = presentedToken(request.headers.get("authorization"));
    if (token === null) return false;
    return timingSafeEqual(await sha256(token), await this.#digest);
  }

  /** The 401 answer: a `WWW-Authenticate` challenge (RFC 6750) and a JSON-RPC error body. */
  challenge(request: Request): Response {
    const presented = request.headers.get("authorization") !== null;
    const challenge = presented
      ? `Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="the bearer token is not valid"`
      : `Bearer realm="${AUTH_REALM}"`;
    const message = presented ? "Unauthorized: invalid bearer token" : "Unauthorized: bearer token required";
    return jsonRpcError(401, -32001, message, { "WWW-Authenticate": challenge });
  }
}
