import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import {
  canonicalPath,
  renderProfile,
  SANDBOX_EXEC,
  sandboxExecArgv,
  sbplString,
  SeatbeltPathError,
  type SeatbeltProfile,
} from "./seatbelt.ts";

/** An SBPL form: an atom, a string, a regex literal, or a list. */
type Form = { atom: string } | { string: string } | { regex: string } | Form[];

/**
 * A reader for the SBPL subset workcell writes, following TinyScheme's reader (which sandbox-exec's is): `;`
 * comments to the end of the line, `"…"` strings where `\` escapes the next character (`\n`, `\t`, `\r` name
 * control characters; any other escaped character stands for itself) and anything else, newlines included,
 * is literal, `#"…"` regex literals, atoms, lists.
 */
function readSbpl(text: string): Form[] {
  let at = 0;
  const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r" };
  const readString = (): string => {
    let out = "";
    for (at++; at < text.length; at++) {
      const char = text[at];
      if (char === '"') return (at++, out);
      if (char === "\\") out += escapes[text[++at]] ?? text[at];
      else out += char;
    }
    throw new Error("unterminated string");
  };
  const readForm = (): Form | null => {
    for (;;) {
      while (/\s/.test(text[at] ?? "")) at++;
      if (text[at] !== ";") break;
      while (at < text.length && text[at] !== "\n") at++;
    }
    const char = text[at];
    if (char === undefined) return null;
    if (char === "(") {
      at++;
      const list: Form[] = [];
      for (;;) {
        while (/\s/.test(text[at] ?? "")) at++;
        if (text[at] === ")") return (at++, list);
        if (at >= text.length) throw new Error("unbalanced (");
        list.push(readForm()!);
      }
    }
    if (char === ")") throw new Error(`unbalanced ) at ${at}`);
    if (char === '"') return { string: readString() };
    if (char === "#" && text[at + 1] === '"') return (at++, { regex: readString() });
    const start = at;
    while (at < text.length && !/[\s()";]/.test(text[at])) at++;
    return { atom: text.slice(start, at) };
  };
  const forms: Form[] = [];
  for (let form; (form = readForm()) !== null;) forms.push(form);
  return forms;
}

function strings(form: Form): string[] {
  if (Array.isArray(form)) return form.flatMap(strings);
  return "string" in form ? [form.string] : [];
}

const head = (form: Form) => (Array.isArray(form) && !Array.isArray(form[0]) && "atom" in form[0] ? form[0].atom : "");

const SAFE: SeatbeltProfile = {
  reads: "all",
  unreadable: ["/Users/u/.ssh", "/Users/u/Library/Keychains"],
  writes: [
    { path: "/Users/u/repo", readOnly: ["/Users/u/repo/.git"] },
    { path: "/private/var/folders/xy/T/workcell-tmp-abc", readOnly: [] },
  ],
  executes: "any",
  terminal: { slave: "/dev/ttys004" },
  network: false,
};
const TRUSTED: SeatbeltProfile = {
  ...SAFE,
  unreadable: [],
  writes: SAFE.writes.map((w) => ({ ...w, readOnly: [] })),
  terminal: { slave: null },
  network: true,
};
const GIT: SeatbeltProfile = {
  reads: ["/Users/u/repo", "/usr", "/System", "/private/etc", "/Users/u/.gitconfig"],
  unreadable: [],
  writes: [],
  executes: {
    files: ["/opt/homebrew/Cellar/git/2.47.0/bin/git"],
    dirs: ["/opt/homebrew/Cellar/git/2.47.0/libexec/git-core"],
  },
  terminal: null,
  network: false,
};
const RIPGREP: SeatbeltProfile = {
  reads: ["/Users/u/repo", "/Users/u/.gitignore", "/opt/rg/bin/rg"],
  unreadable: [],
  writes: [],
  executes: { files: ["/opt/rg/bin/rg"], dirs: [] },
  terminal: null,
  network: false,
};

const GOLDEN = new URL("./testdata/seatbelt/", import.meta.url);

Deno.test("seatbelt profiles: golden text for a safe and a trusted command, git and rg", async () => {
  for (
    const [name, profile] of Object.entries({
      command_safe: SAFE,
      command_trusted: TRUSTED,
      git: GIT,
      ripgrep: RIPGREP,
    })
  ) {
    const golden = await Deno.readTextFile(new URL(`${name}.sb`, GOLDEN));
    assertEquals(renderProfile(profile), golden, `${name}.sb (rewrite it from renderProfile when the policy changes)`);
  }
});

Deno.test("seatbelt profiles: deny by default, one balanced allow per rule, every path a string of its own", () => {
  for (const profile of [SAFE, TRUSTED, GIT, RIPGREP]) {
    const forms = readSbpl(renderProfile(profile));
    assertEquals(forms.slice(0, 2).map(head), ["version", "deny"]);
    assertEquals(JSON.stringify(forms[1]), JSON.stringify([{ atom: "deny" }, { atom: "default" }]));
    assertEquals(forms.slice(2).filter((form) => head(form) !== "allow"), []);
    const texts = new Set(forms.flatMap(strings));
    const paths = [
      ...(profile.reads === "all" ? [] : profile.reads),
      ...profile.unreadable,
      ...profile.writes.flatMap((write) => [write.path, ...write.readOnly]),
      ...(profile.executes === "any" ? [] : [...profile.executes.files, ...profile.executes.dirs]),
    ];
    for (const p of paths) assert(texts.has(p), `${p} is a string of the profile`);
  }
});

Deno.test("seatbelt profiles: what each kind allows (exec, reads, writes, network)", () => {
  const safe = renderProfile(SAFE);
  assert(safe.includes("(allow process-exec*)\n"));
  assert(
    safe.includes(
      '(require-all (subpath "/") (require-not (literal "/Users/u/.ssh")) (require-not (subpath "/Users/u/.ssh"))',
    ),
  );
  assert(
    safe.includes(
      '(require-all (subpath "/Users/u/repo") (require-not (literal "/Users/u/repo/.git")) (require-not (subpath "/Users/u/repo/.git")))',
    ),
  );
  assert(!safe.includes("(allow network*)") && !safe.includes("(allow network-outbound)\n"), "no network in safe mode");
  assert(safe.includes('(remote unix-socket (subpath "/Users/u/repo"))'), "unix sockets beneath the workspace only");
  const trusted = renderProfile(TRUSTED);
  assert(trusted.includes("(allow network*)") && trusted.includes("(allow file-read* file-map-executable)\n"));
  assert(!trusted.includes("require-not"));
  for (const readOnly of [renderProfile(GIT), renderProfile(RIPGREP)]) {
    assert(!readOnly.includes("file-write*"), "git and rg write nothing but /dev/null and /dev/zero");
    assert(!readOnly.includes("(allow process-exec*)\n"), "they execute only themselves");
    assert(!readOnly.includes("pseudo-tty") && !readOnly.includes("(allow network*)"));
  }
  assert(renderProfile(RIPGREP).includes('(allow process-exec*\n  (literal "/opt/rg/bin/rg"))'));
});

Deno.test("sbplString: quotes and backslashes escaped, everything else literal; NUL and lone surrogates refused", () => {
  assertEquals(sbplString("/Users/u/repo"), '"/Users/u/repo"');
  assertEquals(sbplString('a"b'), '"a\\"b"');
  assertEquals(sbplString("a\\b"), '"a\\\\b"');
  assertEquals(sbplString("a\\"), '"a\\\\"', "a trailing backslash cannot escape the closing quote");
  assertEquals(sbplString("(allow default)\n;x"), '"(allow default)\n;x"');
  assert(assertThrows(() => sbplString("a\0b")) instanceof SeatbeltPathError);
  assert(assertThrows(() => sbplString("a\uD800b")) instanceof SeatbeltPathError, "a lone high surrogate");
  assert(assertThrows(() => sbplString("\uDC00")) instanceof SeatbeltPathError, "a lone low surrogate");
  assertEquals(sbplString("\u{1F600}"), '"\u{1F600}"', "a pair is one character");
  assert(
    assertThrows(() => renderProfile({ ...SAFE, writes: [{ path: "/Users/u/a\0b", readOnly: [] }] })) instanceof
      SeatbeltPathError,
    "a profile with such a path is not written at all",
  );
});

/** The profile's UTF-8 bytes, one character per byte: what a reader of bytes sees. */
const asBytes = (text: string) => String.fromCharCode(...new TextEncoder().encode(text));

/** A deterministic generator (xorshift), so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

Deno.test("seatbelt paths: 2,000 hostile names read back as themselves and add no rule", () => {
  const alphabet = [
    '"',
    "\\",
    "(",
    ")",
    ";",
    "\n",
    "\r",
    "\t",
    " ",
    "#",
    "|",
    "*",
    "$",
    "'",
    "`",
    "é",
    "日",
    "a",
    "/",
    ".",
  ];
  const next = random(0x5eed);
  const benign = readSbpl(renderProfile(SAFE)).length;
  for (let round = 0; round < 2000; round++) {
    const name = Array.from(
      { length: 1 + Math.floor(next() * 12) },
      () => alphabet[Math.floor(next() * alphabet.length)],
    )
      .join("");
    assertEquals(readSbpl(sbplString(name)), [{ string: name }], JSON.stringify(name));
    const root = `/Users/u/${name}`;
    const profile: SeatbeltProfile = {
      ...SAFE,
      unreadable: [`/Users/u/.ssh${name}`],
      writes: [{ path: root, readOnly: [`${root}/.git`] }],
      terminal: { slave: `/dev/ttys${name}` },
    };
    const text = renderProfile(profile);
    const forms = readSbpl(text);
    assertEquals(forms.length, benign, `${JSON.stringify(name)} adds or removes no rule`);
    assertEquals(readSbpl(asBytes(text)).length, benign, `${JSON.stringify(name)}: read as bytes, no rule either`);
    const texts = forms.flatMap(strings);
    for (const p of [root, `${root}/.git`, `/Users/u/.ssh${name}`, `/dev/ttys${name}`]) {
      assert(texts.includes(p), `${JSON.stringify(p)} reads back intact`);
    }
  }
});

Deno.test("canonicalPath: the real path of the longest existing part, the rest kept (/tmp is /private/tmp)", () => {
  const real: Record<string, string> = { "/": "/", "/tmp": "/private/tmp", "/Users": "/Users", "/Users/u": "/Users/u" };
  const realPath = (p: string) => {
    if (real[p] === undefined) throw new Deno.errors.NotFound(p);
    return real[p];
  };
  assertEquals(canonicalPath("/tmp/a/b", realPath), "/private/tmp/a/b");
  assertEquals(canonicalPath("/tmp", realPath), "/private/tmp");
  assertEquals(canonicalPath("/Users/u/.ssh", realPath), "/Users/u/.ssh");
  assertEquals(canonicalPath("/Users/u/../u/x", realPath), "/Users/u/x");
  assertEquals(canonicalPath("/nowhere/x", realPath), "/nowhere/x");
  assertThrows(() =>
    canonicalPath("/x", () => {
      throw new Deno.errors.PermissionDenied("/");
    })
  );
});

Deno.test("sandboxExecArgv: /usr/bin/sandbox-exec -p PROFILE -- the resolved program and its arguments", () => {
  assertEquals(sandboxExecArgv("(version 1)", "/usr/bin/env", ["env", "-i", "--", "x"]), [
    SANDBOX_EXEC,
    "-p",
    "(version 1)",
    "--",
    "/usr/bin/env",
    "-i",
    "--",
    "x",
  ]);
  assertEquals(SANDBOX_EXEC, "/usr/bin/sandbox-exec");
});
