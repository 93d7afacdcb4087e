/**
 * Concurrent writers: two clients apply_patch the same two files at the
 * same moment, round after round, both as two HTTP sessions of one server
 * and as two separate server processes on one workspace. Each result must
 * be all or nothing, and the tree must equal what applying the patches that
 * reported success one after the other gives: a success whose change is not
 * in the tree (a lost update) or half a patch in the tree fails the test.
 */
import { assert, assertEquals } from "../../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace } from "../harness.ts";
import { startHttpServer, TEST_TOKEN } from "../http_harness.ts";
import { scale } from "../../testing/scale.ts";

const ROUNDS = scale(40, 400);
const LINES = 20;
const FILES = ["shared.txt", "other.txt"];
/** Codes a patch that lost the race may be refused with. */
const LOSING_CODES = new Set(["PATCH_CONFLICT", "PATCH_CONTEXT_NOT_FOUND"]);

/** One line replaced in one file. */
interface Edit {
  file: string;
  from: string;
  to: string;
}

const original = (file: string) => Array.from({ length: LINES }, (_, i) => `${file[0]}${i}`);

/** Two patches touching both files in opposite orders; `overlap` makes them edit the same lines. */
function patches(overlap: boolean): [Edit[], Edit[]] {
  const [a, b] = overlap ? [5, 5] : [2, 17];
  return [
    [{ file: "shared.txt", from: `s${a}`, to: "one" }, { file: "other.txt", from: `o${a}`, to: "one" }],
    [{ file: "other.txt", from: `o${b}`, to: "two" }, { file: "shared.txt", from: `s${b}`, to: "two" }],
  ];
}

function patchText(edits: Edit[]): string {
  const hunks = edits.map((edit) => `*** Update File: ${edit.file}\n@@\n-${edit.from}\n+${edit.to}\n`);
  return `*** Begin Patch\n${hunks.join("")}*** End Patch\n`;
}

/** The tree after applying `sequence` in order from the original, or null if one of them would not apply. */
function serially(sequence: Edit[][]): Record<string, string> | null {
  const tree = Object.fromEntries(FILES.map((file) => [file, original(file)]));
  for (const edits of sequence) {
    for (const edit of edits) {
      const index = tree[edit.file].indexOf(edit.from);
      if (index < 0) return null;
      tree[edit.file][index] = edit.to;
    }
  }
  return Object.fromEntries(FILES.map((file) => [file, tree[file].join("\n") + "\n"]));
}

async function readTree(root: string): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(FILES.map(async (f) => [f, await Deno.readTextFile(`${root}/${f}`)])));
}

type Caller = (patch: string) => Promise<CallResult>;

async function race(root: string, callers: [Caller, Caller]): Promise<void> {
  const outcomes = { both: 0, one: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const file of FILES) await Deno.writeTextFile(`${root}/${file}`, original(file).join("\n") + "\n");
    const pair = patches(round % 2 === 1);
    const results = await Promise.all(pair.map((edits, i) => callers[i](patchText(edits))));
    const succeeded: Edit[][] = [];
    results.forEach((result, i) => {
      if (!result.isError) succeeded.push(pair[i]);
      else assert(LOSING_CODES.has(result.structured?.error?.code), `round ${round} patch ${i}: ${result.text}`);
    });
    assert(succeeded.length > 0, `round ${round}: both refused: ${results.map((r) => r.text).join(" | ")}`);
    const tree = await readTree(root);
    const orders = succeeded.length === 2 ? [succeeded, [...succeeded].reverse()] : [succeeded];
    const valid = orders.map(serially).filter((expected) => expected !== null);
    assert(
      valid.some((expected) => JSON.stringify(expected) === JSON.stringify(tree)),
      `round ${round}: ${succeeded.length} succeeded but the tree is ${JSON.stringify(tree)}`,
    );
    outcomes[succeeded.length === 2 ? "both" : "one"]++;
  }
  assertEquals(outcomes.both + outcomes.one, ROUNDS);
}

async function seeded(): Promise<string> {
  const root = await tempWorkspace();
  for (const file of FILES) await Deno.writeTextFile(`${root}/${file}`, original(file).join("\n") + "\n");
  return root;
}

Deno.test(`concurrent writers, two HTTP sessions of one server: ${ROUNDS} rounds, each all or nothing`, async () => {
  const root = await seeded();
  try {
    await using server = await startHttpServer({ token: TEST_TOKEN, workspace: root });
    const sessions = await Promise.all([server.connect(), server.connect()]);
    await race(root, [
      (patch) => sessions[0].call("apply_patch", { patch }),
      (patch) => sessions[1].call("apply_patch", { patch }),
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(`concurrent writers, two server processes on one workspace: ${ROUNDS} rounds, each all or nothing`, async () => {
  const root = await seeded();
  try {
    await using first = await startServer({ workspace: root });
    await using second = await startServer({ workspace: root });
    await race(root, [
      (patch) => first.call("apply_patch", { patch }),
      (patch) => second.call("apply_patch", { patch }),
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
