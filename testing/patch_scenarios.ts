/**
 * The apply_patch scenarios in tests/patch_scenarios/<name>/: `patch.txt` (sent byte for byte), `before/` (optional),
 * and `after/` or `expected_error.txt` (the code, then substrings of the error text; the tree must stay `before/`).
 * Optional: `warnings.txt` (substrings some warning must contain), `outside/` (the tree of `$OUTSIDE`, unchanged
 * afterwards) and `setup.txt`: `mode <path> <octal>`, `expect-mode <path> <octal>`, `symlink <path> <target>`,
 * `immutable <dir>` (chattr +i, a real fault even for root). git cannot store `.git`, so fixtures spell it `dot.git`.
 */
import * as path from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { type Entry, snapshot, treeDifferences } from "./tree_snapshot.ts";

/** Where the scenario folders live. */
export const SCENARIO_DIR = new URL("../tests/patch_scenarios/", import.meta.url).pathname;

/** A scenario as read from disk. */
export interface Scenario {
  name: string;
  dir: string;
  patch: string;
  expectError: { code: string; substrings: string[] } | null;
  warnings: string[];
  modes: Map<string, number>;
  expectModes: Map<string, number>;
  symlinks: Map<string, string>;
  immutable: string[];
  hasOutside: boolean;
}

function exists(p: string): Promise<boolean> {
  return Deno.lstat(p).then(() => true, () => false);
}

async function lines(file: string): Promise<string[]> {
  if (!(await exists(file))) return [];
  return (await Deno.readTextFile(file)).split("\n").filter((line) => line.trim() !== "");
}

/** Every scenario, sorted by name. */
export async function loadScenarios(): Promise<Scenario[]> {
  const out: Scenario[] = [];
  for await (const entry of Deno.readDir(SCENARIO_DIR)) {
    if (!entry.isDirectory) continue;
    const dir = path.join(SCENARIO_DIR, entry.name);
    const errorLines = await lines(path.join(dir, "expected_error.txt"));
    const scenario: Scenario = {
      name: entry.name,
      dir,
      patch: await Deno.readTextFile(path.join(dir, "patch.txt")),
      expectError: errorLines.length > 0 ? { code: errorLines[0].trim(), substrings: errorLines.slice(1) } : null,
      warnings: await lines(path.join(dir, "warnings.txt")),
      modes: new Map(),
      expectModes: new Map(),
      symlinks: new Map(),
      immutable: [],
      hasOutside: await exists(path.join(dir, "outside")),
    };
    for (const line of await lines(path.join(dir, "setup.txt"))) {
      const [verb, target, arg] = line.trim().split(/\s+/);
      if (verb === "mode") scenario.modes.set(target, parseInt(arg, 8));
      else if (verb === "expect-mode") scenario.expectModes.set(target, parseInt(arg, 8));
      else if (verb === "symlink") scenario.symlinks.set(target, arg);
      else if (verb === "immutable") scenario.immutable.push(target);
      else throw new Error(`${entry.name}/setup.txt: unknown line ${line}`);
    }
    if (scenario.expectError === null && !(await exists(path.join(dir, "after")))) {
      throw new Error(`${entry.name}: needs after/ or expected_error.txt`);
    }
    out.push(scenario);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const FIXTURE_GIT_DIR = "dot.git";

async function fixtureSnapshot(dir: string): Promise<Map<string, Entry>> {
  const entries = [...await snapshot(dir)].map(([rel, entry]) =>
    [rel.split(path.sep).map((part) => part === FIXTURE_GIT_DIR ? ".git" : part).join(path.sep), entry] as const
  );
  return new Map(entries);
}

async function copyTree(from: string, dest: string): Promise<void> {
  await Deno.mkdir(dest, { recursive: true });
  if (!(await exists(from))) return;
  for (const [rel, entry] of [...await fixtureSnapshot(from)].sort(([a], [b]) => a.localeCompare(b))) {
    const target = path.join(dest, rel);
    if (entry.type === "dir") await Deno.mkdir(target, { recursive: true });
    else if (entry.type === "file") {
      await Deno.writeFile(target, entry.bytes);
      await Deno.chmod(target, 0o644);
    }
  }
}

/** Empties `dir` (keeping it), lifting any immutable flag a failed run left. */
export async function clearDir(dir: string): Promise<void> {
  await new Deno.Command("chattr", { args: ["-R", "-i", dir], stdout: "null", stderr: "null" }).output().catch(
    () => {},
  );
  for await (const entry of Deno.readDir(dir)) await Deno.remove(path.join(dir, entry.name), { recursive: true });
}

/** Lays out a scenario's `before` state in `workspace` (emptied first) and `outside`. */
export async function prepare(scenario: Scenario, workspace: string, outside: string): Promise<void> {
  await clearDir(workspace);
  await clearDir(outside);
  await copyTree(path.join(scenario.dir, "before"), workspace);
  await copyTree(path.join(scenario.dir, "outside"), outside);
  for (const [rel, mode] of scenario.modes) await Deno.chmod(path.join(workspace, rel), mode);
  for (const [rel, target] of scenario.symlinks) {
    await Deno.symlink(target.replace("$OUTSIDE", outside), path.join(workspace, rel));
  }
}

/** Sets (true) or lifts (false) the scenario's immutable directories; returns false when chattr cannot. */
export async function setImmutable(scenario: Scenario, workspace: string, on: boolean): Promise<boolean> {
  for (const rel of scenario.immutable) {
    const chattr = new Deno.Command("chattr", { args: [on ? "+i" : "-i", path.join(workspace, rel)], stderr: "null" });
    const result = await chattr.output().catch(() => null);
    if (!result?.success) return false;
  }
  return true;
}

/** The tree the scenario expects afterwards: `after/` (or `before/` on error) with modes and symlinks applied. */
export async function expectedTree(scenario: Scenario, outside: string): Promise<Map<string, Entry>> {
  const base = await fixtureSnapshot(path.join(scenario.dir, scenario.expectError ? "before" : "after"));
  for (const entry of base.values()) if (entry.type === "file") entry.mode = 0o644;
  const modes = scenario.expectError ? scenario.modes : scenario.expectModes;
  for (const [rel, mode] of modes) {
    const entry = base.get(rel);
    if (entry?.type === "file") entry.mode = mode;
  }
  for (const [rel, target] of scenario.symlinks) {
    base.set(rel, { type: "symlink", target: target.replace("$OUTSIDE", outside) }); // a patch never replaces a symlink
  }
  return base;
}

/** What one apply_patch call gave, however it was made: the text is what the agent reads. */
export type Outcome =
  | { ok: true; warnings: string[]; text: string }
  | { ok: false; code: string; text: string };

/** Runs one scenario with `apply` in `workspace` (emptied and laid out first) and checks its outcome and trees. */
export async function runScenario(
  scenario: Scenario,
  workspace: string,
  outside: string,
  apply: (patch: string) => Promise<Outcome>,
): Promise<void> {
  await prepare(scenario, workspace, outside);
  if (scenario.immutable.length > 0 && !(await setImmutable(scenario, workspace, true))) {
    console.warn(`${scenario.name}: chattr +i is not available here; fault not injected`);
    return;
  }
  const result = await apply(scenario.patch);
  await setImmutable(scenario, workspace, false);
  if (scenario.expectError) {
    assert(!result.ok, `expected ${scenario.expectError.code}, got success:\n${result.text}`);
    assertEquals(result.code, scenario.expectError.code, result.text);
    for (const piece of scenario.expectError.substrings) {
      assert(result.text.includes(piece), `error text lacks ${JSON.stringify(piece)}:\n${result.text}`);
    }
  } else {
    assert(result.ok, `expected success, got:\n${result.text}`);
    for (const piece of scenario.warnings) {
      assert(
        result.warnings.some((w) => w.includes(piece)),
        `no warning contains ${JSON.stringify(piece)}: ${result.warnings}`,
      );
    }
    if (scenario.warnings.length === 0) assertEquals(result.warnings, [], "unexpected warnings");
  }
  const problems = treeDifferences(await snapshot(workspace), await expectedTree(scenario, outside));
  assertEquals(problems, [], `tree differs:\n${problems.join("\n")}\n${result.text}`);
  if (scenario.hasOutside) {
    const outsideProblems = treeDifferences(await snapshot(outside), await snapshot(`${scenario.dir}/outside`));
    assertEquals(outsideProblems.filter((p) => !p.includes("mode")), [], "the outside tree changed");
  }
}
