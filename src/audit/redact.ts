/** Call arguments as the audit log carries them: content and long strings digested, env values and secrets redacted. */
import { envRule } from "../policy/child_environment.ts";
import { sha256Hex } from "../os/executable.ts";
import { AUDIT_LIMITS } from "./limits.ts";
import type { Digest } from "./event.ts";

/** What stands where a secret was. */
export const REDACTED = "[redacted]";

/**
 * The rules of src/policy/child_environment.ts (not a second list) whose names mark a credential. Not the provider rule
 * (AWS_*, GITHUB_*): most of its values are not secrets, and its credentials (GITHUB_TOKEN) match secret.name first.
 */
const CREDENTIAL_RULES = new Set(["server.own", "secret.name", "secret.credential_file"]);
/** A variable's value shorter than this is not searched for in text ("1", "true" would be everywhere). */
const MIN_SECRET_VALUE_CHARS = 8;
/** How deep a free-form argument is walked before the rest is digested. */
const MAX_DEPTH = 6;

const CONTENT_ARGUMENTS: Record<string, readonly string[]> = { apply_patch: ["patch"], write_stdin: ["chars"] };
const ENV_ARGUMENTS: Record<string, readonly string[]> = { exec_command: ["env"] };

const encoder = new TextEncoder();

/**
 * Whether a variable, option or key name (`GITHUB_TOKEN`, `--api-key`, `password`) marks a credential.
 * @example
 * ```ts
 * isCredentialName("--api-key"); // true
 * ```
 */
export function isCredentialName(name: string): boolean {
  const normalised = name.replace(/^-+/, "").replaceAll("-", "_");
  const rule = normalised === "" ? null : envRule(normalised);
  return rule !== null && CREDENTIAL_RULES.has(rule.id);
}

/**
 * The size of `value` and, from AUDIT_LIMITS.minHashedBytes on, its SHA-256.
 * @example
 * ```ts
 * await digest("*** Begin Patch\n*** End Patch\n"); // { bytes: 30 }
 * ```
 */
export async function digest(value: string | Uint8Array): Promise<Digest> {
  const bytes = typeof value === "string" ? encoder.encode(value) : value;
  if (bytes.length < AUDIT_LIMITS.minHashedBytes) return { bytes: bytes.length };
  return { bytes: bytes.length, sha256: await sha256Hex(bytes) };
}

const QUOTED_OR_WORD = String.raw`("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"'&;|]*)`;
/** NAME=value at the start of a word (or of a URL query parameter). */
const ASSIGNMENT = new RegExp(String.raw`(?<=^|[\s"'(;&|?,{])(-{0,2}[A-Za-z_][\w.-]*)=${QUOTED_OR_WORD}`, "g");
/** --name value as two words. */
const OPTION_VALUE = new RegExp(String.raw`(?<=^|[\s"'])(--?[A-Za-z][\w-]*)(\s+)${QUOTED_OR_WORD}`, "g");
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:"']+)(:[^\s/@"']*)?@/gi;
const AUTHORIZATION = /(authorization:\s*)[^"'\n]+/gi;
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[\w.~+/=-]+/g;

/** Redacts the secrets it recognises; one per process, built from the server's environment. */
export class Redactor {
  readonly #values: string[];

  /** `env` is the server's environment (its credential variables' values are searched for), `extra` other secrets. */
  constructor(env: Record<string, string>, extra: readonly string[]) {
    const values = Object.entries(env).filter(([name]) => isCredentialName(name)).map(([, value]) => value);
    // Longest first, so a secret that contains another is replaced whole.
    this.#values = [...new Set([...values, ...extra])].filter((value) => value.length >= MIN_SECRET_VALUE_CHARS)
      .sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = text;
    for (const value of this.#values) if (out.includes(value)) out = out.replaceAll(value, REDACTED);
    out = out.replace(ASSIGNMENT, (whole, name: string) => isCredentialName(name) ? `${name}=${REDACTED}` : whole);
    out = out.replace(
      OPTION_VALUE,
      (whole, name: string, space: string, value: string) =>
        isCredentialName(name) && value !== "" ? `${name}${space}${REDACTED}` : whole,
    );
    out = out.replace(
      URL_USERINFO,
      (_whole, scheme: string, user: string, password?: string) =>
        password === undefined ? `${scheme}${REDACTED}@` : `${scheme}${user}:${REDACTED}@`,
    );
    out = out.replace(AUTHORIZATION, `$1${REDACTED}`);
    return out.replace(AUTH_SCHEME, `$1 ${REDACTED}`);
  }

  async arguments(tool: string, args: unknown): Promise<unknown> {
    if (args === null || typeof args !== "object" || Array.isArray(args)) return await this.#value(args, 0);
    const content = CONTENT_ARGUMENTS[tool] ?? [];
    const environment = ENV_ARGUMENTS[tool] ?? [];
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) {
      if (content.includes(key) && typeof value === "string") out[key] = await digest(value);
      else if (environment.includes(key) && value !== null && typeof value === "object" && !Array.isArray(value)) {
        out[key] = Object.fromEntries(Object.keys(value).map((name) => [this.text(name), REDACTED]));
      } else out[key] = await this.#entry(key, value, 1);
    }
    return out;
  }

  async #entry(key: string, value: unknown, depth: number): Promise<unknown> {
    return isCredentialName(key) ? REDACTED : await this.#value(value, depth);
  }

  async #value(value: unknown, depth: number): Promise<unknown> {
    if (typeof value === "string") {
      return encoder.encode(value).length > AUDIT_LIMITS.maxInlineArgumentBytes
        ? await digest(value)
        : this.text(value);
    }
    if (value === null || typeof value !== "object") return value;
    if (depth >= MAX_DEPTH) return await digest(JSON.stringify(value));
    const max = AUDIT_LIMITS.maxListed;
    if (Array.isArray(value)) {
      const items = await Promise.all(value.slice(0, max).map((item) => this.#value(item, depth + 1)));
      return value.length > max ? [...items, `[${value.length - max} more items]`] : items;
    }
    const entries = Object.entries(value);
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries.slice(0, max)) out[this.text(key)] = await this.#entry(key, item, depth + 1);
    if (entries.length > max) out["[more]"] = `${entries.length - max} more keys`;
    return out;
  }
}
