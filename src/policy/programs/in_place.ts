/**
 * The one in-place-edit check (`destructive.in_place_edit`, safe mode) of
 * the editors that rewrite files: sed, perl and ruby. apply_patch edits
 * atomically and shows a diff.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * inPlaceEdit({ program: "sed", name: "sed", args: [], places }, ["-n", "-i.bak"]);
 * // [{ kind: "refusal", rule: "destructive.in_place_edit", token: "sed -i", … }]
 * ```
 */
import { type Call, type Finding, refusal } from "../gate_findings.ts";

/** How each editor asks for it: `-i`, clustered (`-pi`) or with a suffix (`-i.bak`); sed also `--in-place[=SUFFIX]`. */
const IN_PLACE_OPTION = new Map([
  ["sed", /^(-[A-Za-z]*i|--in-place)/],
  ["perl", /^-[A-Za-z]*i/],
  ["ruby", /^-[A-Za-z]*i/],
]);

/**
 * A refusal when one of the option words asks the call's program to edit in place; nothing for other programs.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * inPlaceEdit({ program: "perl", name: "perl", args: [], places }, ["-pi", "-e", "s/a/b/"]).length; // 1
 * ```
 */
export function inPlaceEdit({ program, name }: Call, options: readonly string[]): Finding[] {
  const option = IN_PLACE_OPTION.get(name);
  if (option === undefined || !options.some((word) => option.test(word))) return [];
  return [refusal("destructive.in_place_edit", `${program} -i`, `${program} -i edits files in place`)];
}
