import { ToolError } from "../errors.ts";

/** One `@@` hunk of an Update File section. */
export interface Hunk {
  /** `@@ <anchor>` lines, outermost first; each narrows the search to after it. Empty for a bare `@@`. */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File` closed the hunk: it must match at the end of the file. */
  eof: boolean;
  /** 1-based line of the hunk's first line in the patch text. */
  line: number;
}

/** One body line of a hunk, without its one-character prefix. */
export interface HunkLine {
  kind: "context" | "remove" | "add";
  text: string;
}

/** One file operation of the envelope. */
export type FileOp =
  | { kind: "add"; path: string; lines: string[]; line: number }
  | { kind: "delete"; path: string; line: number }
  | { kind: "update"; path: string; moveTo: string | null; hunks: Hunk[]; line: number };

/** A parsed patch. */
export interface Patch {
  ops: FileOp[];
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";
/** A hunk line's kind by its first character (an empty line is context too). */
const HUNK_LINE_KINDS: Partial<Record<string, HunkLine["kind"]>> = { " ": "context", "-": "remove", "+": "add" };
const HEREDOC_OPEN = /^(?:[\w.-]+\s+)?<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1\s*$/;

/** A patch line with its 1-based number in the text as sent. */
interface Line {
  text: string;
  number: number;
}

function parseError(line: number, message: string): ToolError {
  return new ToolError("PATCH_PARSE_ERROR", `line ${line}: ${message}`, { details: { line } });
}

/** `lines` without the blank lines at either end. */
function withoutBlankEnds(lines: Line[]): Line[] {
  const content = (line: Line) => line.text.trim() !== "";
  return lines.slice(lines.findIndex(content), lines.findLastIndex(content) + 1);
}

/** Splits on `\n` only, drops one `\r` before each `\n`, strips the envelope's surroundings. */
function envelopeLines(text: string): Line[] {
  let lines = withoutBlankEnds(text.split("\n").map((raw, i) => ({ text: raw.replace(/\r$/, ""), number: i + 1 })));
  const heredoc = lines.length > 0 ? HEREDOC_OPEN.exec(lines[0].text.trim()) : null;
  if (heredoc) {
    const last = lines[lines.length - 1];
    if (lines.length < 2 || last.text.trim() !== heredoc[2]) {
      throw parseError(last.number, `the heredoc opened on line ${lines[0].number} is not closed by ${heredoc[2]}`);
    }
    lines = withoutBlankEnds(lines.slice(1, -1));
  }
  return lines;
}

function header(text: string, prefix: string): string | null {
  const trimmed = text.trim();
  return trimmed.startsWith(prefix) ? trimmed.slice(prefix.length).trim() : null;
}

function isFileHeader(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === END || [ADD, DELETE, UPDATE].some((prefix) => trimmed.startsWith(prefix));
}

/** Whether lines from `i` on are blank up to the next file header (or the end): a separator, not content. */
function separatesSections(lines: readonly Line[], i: number): boolean {
  let k = i;
  while (k < lines.length && lines[k].text.trim() === "") k++;
  return k === lines.length || isFileHeader(lines[k].text);
}

function requirePath(path: string, line: Line, what: string): string {
  if (path === "") throw parseError(line.number, `${what} needs a path after the colon`);
  return path;
}

interface Parsed {
  op: FileOp;
  next: number;
}

function parseAdd(body: Line[], at: number, path: string): Parsed {
  const content: string[] = [];
  let i = at + 1;
  while (i < body.length && !isFileHeader(body[i].text)) {
    if (body[i].text.trim() === "" && separatesSections(body, i)) break;
    if (!body[i].text.startsWith("+")) {
      throw parseError(
        body[i].number,
        `every line of *** Add File must start with "+" (write a blank line as a lone "+"), found ${
          JSON.stringify(body[i].text)
        }`,
      );
    }
    content.push(body[i].text.slice(1));
    i++;
  }
  const op: FileOp = {
    kind: "add",
    path: requirePath(path, body[at], "*** Add File"),
    lines: content,
    line: body[at].number,
  };
  return { op, next: i };
}

function parseUpdate(body: Line[], at: number, path: string): Parsed {
  const line = body[at];
  let i = at + 1;
  while (i < body.length && !isFileHeader(body[i].text)) i++;
  let section = body.slice(at + 1, i);
  while (section.length > 0 && section[section.length - 1].text.trim() === "") section = section.slice(0, -1);
  // "*** Move to:" comes right after the Update line, or after the last hunk (as in the seed's example).
  let moveTo: string | null = null;
  const moveAt = (k: number) => k >= 0 && k < section.length ? header(section[k].text, MOVE) : null;
  const first = moveAt(0);
  if (first !== null) {
    moveTo = requirePath(first, section[0], "*** Move to");
    section = section.slice(1);
  }
  const last = moveAt(section.length - 1);
  if (last !== null) {
    const where = section[section.length - 1];
    if (moveTo !== null) throw parseError(where.number, `a second "${MOVE}" for the same file`);
    moveTo = requirePath(last, where, "*** Move to");
    section = section.slice(0, -1);
  }
  const hunks = parseHunks(section);
  if (hunks.length === 0 && moveTo === null) {
    throw parseError(line.number, `*** Update File: ${path} has no @@ hunk (and no *** Move to)`);
  }
  const op: FileOp = {
    kind: "update",
    path: requirePath(path, line, "*** Update File"),
    moveTo,
    hunks,
    line: line.number,
  };
  return { op, next: i };
}

/**
 * Parses patch text into file operations, or throws PATCH_PARSE_ERROR naming the line and what was expected there.
 * Tolerates what agents really send: blank lines and whitespace around the envelope, padded `***` marker lines, CRLF,
 * a missing final newline, a heredoc wrapper (`apply_patch <<'EOF'` … `EOF`), and a first hunk without an `@@` line.
 * @example
 * ```ts
 * parsePatch("*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch").ops[0].kind; // "add"
 * ```
 */
export function parsePatch(text: string): Patch {
  const lines = envelopeLines(text);
  if (lines.length === 0) throw parseError(1, `the patch is empty; expected "${BEGIN}"`);
  if (lines[0].text.trim() !== BEGIN) {
    throw parseError(lines[0].number, `expected "${BEGIN}" as the first line, found ${JSON.stringify(lines[0].text)}`);
  }
  const last = lines[lines.length - 1];
  if (lines.length < 2 || last.text.trim() !== END) {
    throw parseError(last.number, `expected "${END}" as the last line, found ${JSON.stringify(last.text)}`);
  }
  const body = lines.slice(1, -1);
  const ops: FileOp[] = [];
  let i = 0;
  while (i < body.length) {
    const line = body[i];
    if (line.text.trim() === "") {
      i++;
      continue;
    }
    const add = header(line.text, ADD);
    const del = header(line.text, DELETE);
    const update = header(line.text, UPDATE);
    let parsed: Parsed;
    if (add !== null) parsed = parseAdd(body, i, add);
    else if (del !== null) {
      parsed = {
        op: { kind: "delete", path: requirePath(del, line, "*** Delete File"), line: line.number },
        next: i + 1,
      };
    } else if (update !== null) parsed = parseUpdate(body, i, update);
    else {
      throw parseError(
        line.number,
        `expected "${ADD} <path>", "${DELETE} <path>", "${UPDATE} <path>" or "${END}", found ${
          JSON.stringify(line.text)
        }`,
      );
    }
    ops.push(parsed.op);
    i = parsed.next;
  }
  if (ops.length === 0) throw parseError(last.number, "the patch has no file operations");
  return { ops };
}

/** Parses the hunks of one Update File section (the first may lack its `@@`). */
function parseHunks(lines: Line[]): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  const close = () => {
    if (current === null) return;
    if (current.lines.length === 0) {
      throw parseError(current.line, "this @@ hunk has no lines; expected lines starting with ' ', '-' or '+'");
    }
    hunks.push(current);
    current = null;
  };
  for (const line of lines) {
    const trimmed = line.text.trim();
    if (line.text.startsWith("@@")) {
      const anchor = line.text.slice(2).replace(/^ /, "").trimEnd();
      if (current === null || current.lines.length > 0) {
        close();
        current = { anchors: [], lines: [], eof: false, line: line.number };
      }
      if (anchor.trim() !== "") current.anchors.push(anchor);
      continue;
    }
    if (trimmed === END_OF_FILE) {
      if (current === null || current.lines.length === 0) {
        throw parseError(line.number, `"${END_OF_FILE}" must follow the lines of a hunk`);
      }
      current.eof = true;
      close();
      continue;
    }
    if (trimmed.startsWith(MOVE)) {
      throw parseError(line.number, `"${MOVE}" must come right after its *** Update File line or after its last hunk`);
    }
    const kind = line.text === "" ? "context" : HUNK_LINE_KINDS[line.text[0]];
    if (kind === undefined) {
      throw parseError(
        line.number,
        `expected a hunk line starting with ' ', '-' or '+', an "@@" line, "${END_OF_FILE}" or a *** header, found ${
          JSON.stringify(line.text)
        }`,
      );
    }
    current ??= { anchors: [], lines: [], eof: false, line: line.number };
    current.lines.push({ kind, text: line.text.slice(1) });
  }
  close();
  return hunks;
}
