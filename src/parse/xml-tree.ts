/**
 * A small, strict XML reader for machine-written documents like `nvidia-smi -q -x`: elements, attributes, text,
 * comments, CDATA, the XML declaration and DOCTYPE. It is ~10× faster than a general-purpose parser on a 100-GPU
 * document (see bench/host.bench.ts) and reports the first well-formedness error with its line. Pure.
 */

export type XmlElement = {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated, trimmed text directly inside this element. */
  text: string;
};

export type XmlReadResult =
  | {
      ok: true;
      root: XmlElement;
      /** The document ended inside an element (a capture cut short): what was read is kept, the open elements closed. */
      cut?: { message: string; line: number };
    }
  | { ok: false; message: string; line: number };

export type XmlReadOptions = {
  /**
   * Reads, at `depth` (the root is at 0), only the elements named in `names`: any other element there is passed
   * over to its matching close tag and left out of the tree. What it holds is not read, so it is not checked either
   * (a close tag of its name inside a comment or CDATA would end it early). For documents with large sections
   * nobody reads, like nvidia-smi's clocks, power and temperature readings per GPU.
   */
  keepAtDepth?: { depth: number; names: ReadonlySet<string> };
};

const ATTR = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9a-fA-F]+));/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (_m, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return NAMED[name]!;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
  });
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** End of a markup construct starting at `i` (index after its terminator), or -1 when the text ends first. */
function skipSpecial(text: string, i: number): number {
  const ends: [string, string][] = [
    ["<!--", "-->"],
    ["<![CDATA[", "]]>"],
    ["<?", "?>"],
  ];
  for (const [open, close] of ends) {
    if (text.startsWith(open, i)) {
      const e = text.indexOf(close, i + open.length);
      return e < 0 ? -1 : e + close.length;
    }
  }
  // <!DOCTYPE …> with an optional [internal subset]
  const gt = text.indexOf(">", i);
  const bracket = text.indexOf("[", i);
  if (bracket >= 0 && gt >= 0 && bracket < gt) {
    const e = text.indexOf("]", bracket);
    const g = e < 0 ? -1 : text.indexOf(">", e);
    return g < 0 ? -1 : g + 1;
  }
  return gt < 0 ? -1 : gt + 1;
}

/** Index of the `>` closing the tag that starts at `i`, skipping `>` inside quoted attribute values. */
function tagEnd(text: string, i: number): number {
  let quote = "";
  for (let k = i + 1; k < text.length; k++) {
    const c = text[k];
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ">") return k;
    else if (c === "<") return -1;
  }
  return -1;
}

function blankRange(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** `[A-Za-z_]`: what a tag name starts with. */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** `[\w.:-]`: what the rest of a tag name is made of. */
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 58) /* 0-9 : */ || c === 46 || c === 45;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Shared by every element without attributes (elements are read, never changed). */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
/** Shared by every element until its first child (most elements of nvidia-smi's document are leaves). */
const NO_CHILDREN: XmlElement[] = Object.freeze([]) as unknown as XmlElement[];

/**
 * The text of each open element, kept as `trim(concat(segments))` without arrays: `texts[d]` is the text so far of
 * the element at depth d, `blanks[d]` the whitespace after it, kept only if non-blank text follows (mixed content).
 */
type TextStacks = { texts: string[]; blanks: string[] };

function addSegment(st: TextStacks, d: number, s: string): void {
  if (blankRange(s, 0, s.length)) {
    if (st.texts[d] !== "") st.blanks[d] += s;
    return;
  }
  st.texts[d] += st.blanks[d] + s;
  st.blanks[d] = "";
}

/** `name="v"` pairs of a tag (the text between its name and `>`), or the first thing that is not one. */
function readAttrs(rest: string): { attrs: Record<string, string> } | { leftover: string } {
  const attrs: Record<string, string> = {};
  ATTR.lastIndex = 0;
  for (let a = ATTR.exec(rest); a !== null; a = ATTR.exec(rest)) attrs[a[1]!] = decode(a[2] ?? a[3] ?? "");
  const leftover = rest.replace(ATTR, "").trim();
  return leftover ? { leftover } : { attrs };
}

const NEVER_CLOSED = "a tag that is never closed with `>` (truncated?)";

/** Index just past the tag name that starts at `lt + 1`, or -1 when no name starts there. */
function nameEnd(text: string, lt: number): number {
  if (!isNameStart(text.charCodeAt(lt + 1))) return -1;
  let k = lt + 2;
  while (k < text.length && isNameChar(text.charCodeAt(k))) k++;
  return k;
}

/** What follows a tag name that ends at `k` with neither `>` nor `/>`: attributes up to the `>`, or what is wrong. */
function tagWithAttrs(
  text: string,
  lt: number,
  k: number,
  name: string,
): { gt: number; selfClosing: boolean; attrs: Record<string, string> } | { message: string } {
  const c = text.charCodeAt(k);
  if (isSpace(c)) {
    const gt = tagEnd(text, lt);
    if (gt < 0) return { message: NEVER_CLOSED };
    const selfClosing = text.charCodeAt(gt - 1) === 47;
    const read = readAttrs(text.slice(k, selfClosing ? gt - 1 : gt));
    if ("leftover" in read) return { message: `unexpected "${read.leftover.slice(0, 30)}" in <${name}>` };
    return { gt, selfClosing, attrs: Object.keys(read.attrs).length > 0 ? read.attrs : NO_ATTRS };
  }
  const gt = text.indexOf(">", k);
  if (k >= text.length || c === 60 /* < */ || gt < 0) return { message: NEVER_CLOSED };
  return { message: `"<${text.slice(lt + 1, Math.min(gt, lt + 31))}" is not a tag` };
}

/** The `>` of the closing tag at `lt`, or -1 when it never closes (the text ends, or another `<` comes first). */
function closeTagEnd(text: string, lt: number): number {
  const gt = text.indexOf(">", lt);
  const next = gt < 0 ? -1 : text.indexOf("<", lt + 1);
  return gt < 0 || (next >= 0 && next < gt) ? -1 : gt;
}

/** `c` ends a tag name: `>`, `/` or white space. */
function endsName(c: number): boolean {
  return c === 62 || c === 47 || isSpace(c);
}

/**
 * Index just past the `</name>` that closes an element whose content starts at `from` (elements of the same name
 * inside it are counted), or -1 when the text ends first.
 */
function skipElement(text: string, from: number, name: string): number {
  const open = `<${name}`;
  const close = `</${name}`;
  let depth = 1;
  let pos = from;
  while (depth > 0) {
    const end = text.indexOf(close, pos);
    if (end < 0) return -1;
    // Elements of the same name opened before that close tag (searched in the content only, not to the next one).
    const inner = text.slice(pos, end);
    for (let o = inner.indexOf(open); o >= 0; o = inner.indexOf(open, o + open.length)) {
      if (!endsName(text.charCodeAt(pos + o + open.length))) continue;
      const gt = tagEnd(text, pos + o);
      if (gt < 0) return -1;
      if (text.charCodeAt(gt - 1) !== 47 /* / */) depth++;
    }
    const gt = closeTagEnd(text, end);
    if (gt < 0) return -1;
    if (blankRange(text, end + close.length, gt)) depth--;
    pos = gt + 1;
  }
  return pos;
}

/** Where `</name>` starts when it is the next tag after `from` (the element is a text-only leaf), else -1. */
function leafCloseAt(text: string, from: number, name: string): number {
  const lt = text.indexOf("<", from);
  if (lt < 0 || text.charCodeAt(lt + 1) !== 47 /* / */) return -1;
  const end = lt + 2 + name.length;
  return text.charCodeAt(end) === 62 /* > */ && text.startsWith(name, lt + 2) ? lt : -1;
}

/**
 * Reads a whole document into a tree. Scans tags in place by character code: a name is sliced once, whitespace
 * between tags is never sliced, and a leaf costs one object (nvidia-smi's document is ~1,000 mostly-leaf elements).
 */
export function readXml(text: string, opts: XmlReadOptions = {}): XmlReadResult {
  const keep = opts.keepAtDepth;
  const stack: XmlElement[] = [];
  const st: TextStacks = { texts: [], blanks: [] };
  let root: XmlElement | null = null;
  const fail = (message: string, at: number): XmlReadResult => ({ ok: false, message, line: lineAt(text, at) });
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    const lt = text.indexOf("<", pos);
    const stop = lt < 0 ? n : lt;
    // Whitespace between tags (most of a pretty-printed document) is looked at in place, never sliced.
    if (stop > pos) {
      const d = stack.length - 1;
      if (!blankRange(text, pos, stop)) {
        const s = text.slice(pos, stop);
        if (d < 0) return fail(`text outside the root element: "${s.trim().slice(0, 40)}"`, pos);
        addSegment(st, d, decode(s));
      } else if (d >= 0 && st.texts[d] !== "") st.blanks[d] += text.slice(pos, stop); // mixed content only
    }
    if (lt < 0) break;
    const next = text.charCodeAt(lt + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = skipSpecial(text, lt);
      if (end < 0) return fail("the document ends inside a comment, CDATA or declaration (truncated?)", lt);
      if (text.startsWith("<![CDATA[", lt)) {
        if (!stack.length) return fail("CDATA outside the root element", lt);
        addSegment(st, stack.length - 1, text.slice(lt + 9, end - 3));
      }
      pos = end;
      continue;
    }
    if (next === 47 /* / */) {
      const gt = closeTagEnd(text, lt);
      if (gt < 0) return fail(NEVER_CLOSED, lt);
      const open = stack[stack.length - 1];
      // </name> of the open element, compared in place (the common case: no slice, no trim).
      const fast =
        open !== undefined && text.startsWith(open.name, lt + 2) && blankRange(text, lt + 2 + open.name.length, gt);
      if (!fast) {
        const name = text.slice(lt + 2, gt).trim();
        if (!open) return fail(`closing tag </${name}> without an opening tag`, lt);
        return fail(`expected </${open.name}>, found </${name}>`, lt);
      }
      stack.pop();
      open.text = st.texts.pop()!.trim();
      st.blanks.pop();
      pos = gt + 1;
      continue;
    }
    // <name>, <name/> or <name a="v" …>: the name is scanned in place and sliced once.
    const k = nameEnd(text, lt);
    if (k < 0) {
      const end = text.indexOf(">", lt);
      return fail(end < 0 ? NEVER_CLOSED : `"<${text.slice(lt + 1, Math.min(end, lt + 31))}" is not a tag`, lt);
    }
    const name = text.slice(lt + 1, k);
    const c = text.charCodeAt(k);
    let gt = k;
    let selfClosing = false;
    let attrs = NO_ATTRS;
    if (c === 47 /* / */ && text.charCodeAt(k + 1) === 62 /* > */) {
      gt = k + 1;
      selfClosing = true;
    } else if (c !== 62 /* > */) {
      const tag = tagWithAttrs(text, lt, k, name);
      if ("message" in tag) return fail(tag.message, lt);
      ({ gt, selfClosing, attrs } = tag);
    }
    pos = gt + 1;
    if (keep !== undefined && stack.length === keep.depth && !keep.names.has(name)) {
      if (selfClosing) continue;
      pos = skipElement(text, pos, name);
      if (pos < 0) return cutShort(root, stack, st, `the document ends inside <${name}> (truncated?)`, lineAt(text, n));
      continue;
    }
    const el: XmlElement = { name, attrs, children: NO_CHILDREN, text: "" };
    const parent = stack[stack.length - 1];
    if (parent) {
      if (parent.children === NO_CHILDREN) parent.children = [el];
      else parent.children.push(el);
    } else if (root) return fail(`a second root element <${name}>`, lt);
    else root = el;
    if (selfClosing) continue;
    // A leaf written `<name>text</name>` (most of nvidia-smi's document) is read in one step, off the stacks.
    const close = leafCloseAt(text, pos, name);
    if (close >= 0) {
      if (!blankRange(text, pos, close)) el.text = decode(text.slice(pos, close)).trim();
      pos = close + name.length + 3;
      continue;
    }
    stack.push(el);
    st.texts.push("");
    st.blanks.push("");
  }
  if (stack.length && root)
    return cutShort(
      root,
      stack,
      st,
      `the document ends inside <${stack[stack.length - 1]!.name}> (truncated?)`,
      lineAt(text, n),
    );
  if (!root) return fail("no root element", 0);
  return { ok: true, root };
}

/** A document cut short: its open elements closed with the text they had, the tree kept, the cut said. */
function cutShort(
  root: XmlElement | null,
  stack: XmlElement[],
  st: TextStacks,
  message: string,
  line: number,
): XmlReadResult {
  if (!root) return { ok: false, message, line };
  while (stack.length) {
    stack.pop()!.text = (st.texts.pop() ?? "").trim();
    st.blanks.pop();
  }
  return { ok: true, root, cut: { message, line } };
}

/** The first child element with this name. */
export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (el === undefined) return undefined;
  const kids = el.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.name === name) return kids[i];
  return undefined;
}

/** Follows a path of child names. */
export function at(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let cur = el;
  for (const n of names) cur = child(cur, n);
  return cur;
}
