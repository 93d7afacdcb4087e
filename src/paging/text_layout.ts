import { MAX_TEXT_BYTES } from "./budget.ts";
import { utf8CutIndex } from "../text/utf8.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A UTF-16 unit beyond ASCII; text without one has one UTF-8 byte per unit. */
const NON_ASCII = /[\u0080-\uffff]/;

// UTF-8 length as TextEncoder gives it (a lone surrogate is U+FFFD, 3 bytes), without encoding: every page measures
// each item, and encoding cost more than the page's read. The ASCII test is about four times faster than the loop.
function bytes(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) n += 1;
    else if (unit < 0x800) n += 2;
    else if ((unit & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** What {@linkcode layoutText} lays out. */
export interface TextLayout {
  header(shown: number): string;
  items: readonly string[];
  /** Lines after the items (warnings), given how many items are shown. */
  footer?(shown: number): string[];
  /** The next-call line when something continues after `shown` items, else null. */
  next(shown: number): string | null;
}

function compose(layout: TextLayout, shown: number, items: readonly string[]): string {
  const next = layout.next(shown);
  return [layout.header(shown), ...items.slice(0, shown), ...(layout.footer?.(shown) ?? []), ...(next ? [next] : [])]
    .join("\n");
}

/**
 * The text a tool shows (content-only clients read nothing else) within `maxBytes`: a header true to what follows, as
 * many whole items as fit, the footer lines, and when anything continues the exact next call last, resuming after the
 * last item shown (maybe before the structured page's end). An item too large even alone is cut with a marker
 * (`cutFirst`; `shown` counts it with the items shown whole).
 * @example
 * ```ts
 * layoutText({ header: (n) => `${n} lines`, items: ["a", "b"], next: () => null }).text; // "2 lines\na\nb"
 * ```
 */
export function layoutText(
  layout: TextLayout,
  maxBytes = MAX_TEXT_BYTES,
): { text: string; shown: number; cutFirst: boolean } {
  const { items } = layout;
  // The most items whose bytes alone fit; then back off until header, footer and next fit too.
  let shown = 0;
  let used = 0;
  while (shown < items.length) {
    const cost = bytes(items[shown]) + 1;
    if (used + cost > maxBytes) break;
    used += cost;
    shown++;
  }
  for (; shown > 0; shown--) {
    const text = compose(layout, shown, items);
    if (bytes(text) <= maxBytes) return { text, shown, cutFirst: false };
  }
  const none = compose(layout, 0, items);
  if (items.length === 0 || bytes(none) > maxBytes) return { text: none, shown: 0, cutFirst: false };
  // The first item alone is too large: show what fits of it, marked, and continue after it.
  const room = maxBytes - bytes(compose(layout, 1, [""])) - 80;
  const first = encoder.encode(items[0]);
  const cut = decoder.decode(first.subarray(0, utf8CutIndex(first, Math.max(0, room))));
  const marked = `${cut}\n[… ${first.length - bytes(cut)} more bytes of this item not shown]`;
  return { text: compose(layout, 1, [marked]), shown: 1, cutFirst: true };
}

/**
 * The exact call that continues a result: the call's own arguments without `replaced`, and the resume arguments last.
 * @example
 * ```ts
 * nextCall("read_file", { path: "big.ts" }, { offset: 256 }); // 'next: read_file {"path":"big.ts","offset":256}'
 * ```
 */
export function nextCall(
  tool: string,
  given: Readonly<Record<string, unknown>>,
  resume: Record<string, unknown>,
  replaced: readonly string[] = [],
): string {
  const args: Record<string, unknown> = { ...given };
  for (const name of [...replaced, ...Object.keys(resume)]) delete args[name];
  return `next: ${tool} ${JSON.stringify({ ...args, ...resume })}`;
}
