/** Real git repositories for the git tool tests and benchmarks, with fixed identities and dates. */
import * as path from "node:path";

const decoder = new TextDecoder();

/** Environment of fixture git runs: fixed identity, no user or system config. */
export function fixtureEnv(): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Ada Lovelace",
    GIT_AUTHOR_EMAIL: "ada@example.org",
    GIT_AUTHOR_DATE: "2024-05-01T10:00:00+02:00",
    GIT_COMMITTER_NAME: "Charles Babbage",
    GIT_COMMITTER_EMAIL: "charles@example.org",
    GIT_COMMITTER_DATE: "2024-05-01T11:00:00+02:00",
  };
}

/** Runs git in `dir` and returns stdout; throws with stderr on failure. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: dir, env: fixtureEnv(), clearEnv: true, stdin: "null" })
    .output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${decoder.decode(out.stderr)}`);
  return decoder.decode(out.stdout);
}

/** `git init -b main` in `dir` (created if missing). */
export async function initRepo(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
}

/** Writes files (text or bytes) under `dir`, creating parents. */
export async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(file, content);
    else await Deno.writeFile(file, content);
  }
}

/** Stages everything and commits with `message`. */
export async function commitAll(dir: string, message: string): Promise<void> {
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", message);
}

/** A fast-import `data` command for `text`. */
export function fastImportData(text: string): string {
  return `data ${new TextEncoder().encode(text).length}\n${text}\n`;
}

/**
 * Runs `git fast-import` in the repository `dir` on the stream `produce` writes (batched), then checks out main.
 * @example
 * ```ts
 * await fastImport("/tmp/repo", async (write) => {
 *   await write(`commit refs/heads/main\ncommitter Ada <ada@example.org> 1700000000 +0200\n${fastImportData("x\n")}`);
 * });
 * ```
 */
export async function fastImport(dir: string, produce: (write: (text: string) => Promise<void>) => Promise<void>) {
  const child = new Deno.Command("git", {
    args: ["fast-import", "--quiet"],
    cwd: dir,
    env: fixtureEnv(),
    clearEnv: true,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let batch = "";
  await produce(async (text) => {
    batch += text;
    if (batch.length < 256 * 1024) return;
    await writer.write(encoder.encode(batch));
    batch = "";
  });
  await writer.write(encoder.encode(batch));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`fast-import failed: ${decoder.decode(out.stderr)}`);
  await git(dir, "reset", "-q", "--hard", "main");
}

/**
 * Imports `count` linear commits on main, each rewriting `log.txt` and one of 10 files under `files/`, and checks out.
 * @example
 * ```ts
 * await importHistory("/tmp/repo", 10_000); // about a second
 * ```
 */
export async function importHistory(dir: string, count: number): Promise<void> {
  await initRepo(dir);
  await fastImport(dir, async (write) => {
    for (let i = 1; i <= count; i++) {
      const when = 1_700_000_000 + i * 60;
      await write(
        `commit refs/heads/main\nmark :${i}\n` +
          `author Ada Lovelace <ada@example.org> ${when} +0200\n` +
          `committer Charles Babbage <charles@example.org> ${when} +0200\n` +
          fastImportData(`commit ${i}\n\nBody of commit ${i}.\n`) +
          (i > 1 ? `from :${i - 1}\n` : "") +
          `M 100644 inline log.txt\n${fastImportData(`entry ${i}\n`)}` +
          `M 100644 inline files/f${i % 10}.txt\n${fastImportData(`version ${i}\n`)}\n`,
      );
    }
  });
}
