/**
 * The outside world of the confinement tests: a workspace beside an outside
 * tree holding a secret (a text file, an image, a git repository), symlinks
 * from one to the other, evidence of any write outside (content hashes,
 * mtimes, sizes, modes, names), and the race harness that flips a workspace
 * directory to a symlink to the outside tree while a tool runs. What the
 * server did is judged by its answers and by the outside tree, never by
 * access times: any process on the machine can move those.
 *
 * @example
 * const leaks = await race((server) => server.call("read_file", { path: "race/secret.txt" }));
 */
import * as path from "node:path";
import { assert, assertEquals } from "../../testing/assert.ts";
import { scale } from "../../testing/scale.ts";
import { rawPng } from "../../testing/image_fixtures.ts";
import { type CallResult, startServer, tempWorkspace, type TestServer } from "../harness.ts";

export const SECRET = `OUTSIDE-SECRET-${crypto.randomUUID()}`;
export interface Fixture {
  base: string;
  workspace: string;
  outside: string;
}

async function run(cwd: string, ...argv: string[]) {
  const out = await new Deno.Command(argv[0], { args: argv.slice(1), cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${argv.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

export async function fixture(): Promise<Fixture> {
  const base = await tempWorkspace();
  const workspace = path.join(base, "ws");
  const outside = path.join(base, "outside");
  await Deno.mkdir(path.join(workspace, "src"), { recursive: true });
  await Deno.mkdir(path.join(outside, "repo"), { recursive: true });
  await Deno.writeTextFile(path.join(outside, "secret.txt"), `${SECRET}\n`);
  await Deno.writeTextFile(path.join(workspace, "src", "inside.txt"), "inside\n");
  // A 1x1 PNG outside, for view_image.
  await Deno.writeFile(
    path.join(outside, "secret.png"),
    Uint8Array.from(
      atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
      (c) => c.charCodeAt(0),
    ),
  );
  await run(path.join(outside, "repo"), "git", "init", "-q");
  await Deno.writeTextFile(path.join(outside, "repo", "tracked.txt"), `${SECRET}\n`);
  await run(path.join(outside, "repo"), "git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
  await run(path.join(outside, "repo"), "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "outside");
  const links: [string, string][] = [
    [path.join(outside, "secret.txt"), "file-out"],
    [outside, "dir-out"],
    ["../outside", "rel-dir-out"],
    ["file-out", "chain-1"],
    ["chain-1", "chain-2"],
    [`/proc/self/root${outside}`, "proc-root"],
    [path.join(outside, "secret.png"), "image-out.png"],
    [path.join(outside, "repo"), "repo-out"],
    [path.join(outside, "created-through-link.txt"), "dangling-out"],
  ];
  for (const [target, name] of links) await Deno.symlink(target, path.join(workspace, name));
  return { base, workspace, outside };
}

/** Path → [sha-256, mtime] of every entry under `dir` (links not followed). */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const walk = async (current: string) => {
    for await (const entry of Deno.readDir(current)) {
      const full = path.join(current, entry.name);
      const info = await Deno.lstat(full);
      let digest = "";
      if (info.isFile) {
        digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(full))))
          .map((b) => b.toString(16).padStart(2, "0")).join("");
      }
      entries.set(full, `${digest} ${info.mtime?.getTime()} ${info.size} ${info.mode}`);
      if (info.isDirectory) await walk(full);
    }
  };
  await walk(dir);
  return entries;
}

/**
 * What differs between two snapshots of the outside tree: entries created, removed or changed (content, mtime,
 * size or mode).
 *
 * @example
 * const changes = outsideChanges(before, await snapshot(outside)); // [] when nothing outside was touched
 */
export function outsideChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  return [
    ...[...after.keys()].filter((entry) => !before.has(entry)).map((entry) => `created ${entry}`),
    ...[...before.keys()].filter((entry) => !after.has(entry)).map((entry) => `removed ${entry}`),
    ...[...after].filter(([entry, facts]) => before.has(entry) && before.get(entry) !== facts)
      .map(([entry]) => `changed ${entry}`),
  ];
}

/** The image inside the swapped directory: 2x1 gray, where the outside secret.png is 1x1. */
const INSIDE_PNG = { width: 2, height: 1, bitDepth: 8, colorType: 0, rows: [new Uint8Array([0, 255])] };
/** How view_image's answer gives the outside image's size. */
const OUTSIDE_PNG_SIZE = '"original":{"width":1,"height":1}';

/** Calls made while race/ flips between a real directory and a symlink to the outside tree. */
export const RACE_CALLS = scale(40, 1000);

/** Where a race swaps, and the server's extra arguments. */
export interface RaceOptions {
  /** The workspace-relative directory flipped between itself and a symlink to the outside tree; "race" by default. */
  swap?: string;
  args?: string[];
  /** Make the workspace a git repository with the swapped directory committed. */
  git?: boolean;
  /** Extra environment for the server (e.g. WORKCELL_FILE_BACKEND). */
  env?: Record<string, string>;
  /** How many calls are made; RACE_CALLS by default. */
  calls?: number;
}

/**
 * Runs `call` RACE_CALLS times (or `options.calls`) while a directory of the workspace (holding `secret.txt` and `image.png`
 * with inside content) flips between itself and a symlink to the outside tree. Fails when anything
 * outside was created, removed or changed; returns the calls whose answers carried outside names or content.
 */
export async function race(
  call: (server: TestServer, i: number) => Promise<CallResult>,
  options: RaceOptions = {},
): Promise<string[]> {
  const f = await fixture();
  try {
    const dir = path.join(f.workspace, options.swap ?? "race");
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(path.join(dir, "secret.txt"), "inside\n");
    // 2x1, where the outside one is 1x1: view_image's answer tells which it read.
    await Deno.writeFile(path.join(dir, "image.png"), await rawPng(INSIDE_PNG));
    if (options.git) {
      await run(f.workspace, "git", "init", "-q");
      await run(f.workspace, "git", "add", "--", options.swap ?? "race");
      await run(f.workspace, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "inside");
    }
    const parked = `${dir}-parked`;
    const before = await snapshot(f.outside);
    await using server = await startServer({ workspace: f.workspace, args: options.args, env: options.env });
    let swapping = true;
    // Whatever a call left at race/ in an instant it was missing (a fresh directory, or nothing where the
    // symlink was) is cleared, so each flip is exact.
    const force = async (make: () => Promise<void>) => {
      for (;;) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        if (await make().then(() => true, () => false)) return;
      }
    };
    const swapper = (async () => {
      let swaps = 0;
      // Each phase lasts about a millisecond, so calls start in both and many are mid-flight at a flip.
      const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
      while (swapping) {
        await Deno.rename(dir, parked);
        await force(() => Deno.symlink(f.outside, dir));
        await pause();
        await force(() => Deno.rename(parked, dir));
        await pause();
        swaps++;
      }
      return swaps;
    })();
    const leaks: string[] = [];
    for (let i = 0; i < (options.calls ?? RACE_CALLS); i++) {
      const result = await call(server, i);
      const answer = JSON.stringify(result.structured) + result.text;
      if (
        answer.includes(SECRET) || answer.includes("secret.png") || answer.includes("tracked.txt") ||
        answer.includes(OUTSIDE_PNG_SIZE)
      ) {
        leaks.push(`call ${i}: ${result.text.slice(0, 300)}`);
      }
    }
    swapping = false;
    assert((await swapper) > 0);
    assertEquals(outsideChanges(before, await snapshot(f.outside)), [], "the outside tree changed");
    return leaks;
  } finally {
    await Deno.remove(f.base, { recursive: true });
  }
}
