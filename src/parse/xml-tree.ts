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

export type XmlReadResult = { ok: true; root: XmlElement } | { ok: false; message: string; line: number };

const NAME = /^[A-Za-z_][\w.:-]*$/;
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

function oddQuotes(s: string): boolean {
  let d = 0;
  let q = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 34) d++;
    else if (c === 39) q++;
  }
  return (d & 1) === 1 || (q & 1) === 1;
}

function firstSpace(s: string): number {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 32 || c === 9 || c === 10 || c === 13) return k;
  }
  return -1;
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

/**
 * The text of one open element: `trim(concat(segments))`, kept without an array — the whitespace between child
 * elements (most segments) costs nothing unless non-blank text follows it.
 */
type TextAcc = { text: string; pendingBlank: string };

function blankRange(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

function isBlank(s: string): boolean {
  return blankRange(s, 0, s.length);
}

/** Shared by every element without attributes (elements are read, never changed). */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function addSegment(acc: TextAcc, s: string): void {
  if (isBlank(s)) {
    if (acc.text !== "") acc.pendingBlank += s;
    return;
  }
  acc.text += acc.pendingBlank + s;
  acc.pendingBlank = "";
}

export function readXml(text: string): XmlReadResult {
  const stack: XmlElement[] = [];
  const texts: TextAcc[] = [];
  let root: XmlElement | null = null;
  const fail = (message: string, at: number): XmlReadResult => ({ ok: false, message, line: lineAt(text, at) });
  const addText = (s: string, at: number): XmlReadResult | null => {
    if (stack.length) addSegment(texts[texts.length - 1]!, decode(s));
    else if (s.trim() !== "") return fail(`text outside the root element: "${s.trim().slice(0, 40)}"`, at);
    return null;
  };
  let pos = 0;
  while (pos < text.length) {
    const lt = text.indexOf("<", pos);
    const stop = lt < 0 ? text.length : lt;
    // Whitespace between tags (most of a pretty-printed document) is looked at in place, never sliced.
    if (stop > pos) {
      const acc = texts[texts.length - 1];
      if (!blankRange(text, pos, stop)) {
        const bad = addText(text.slice(pos, stop), pos);
        if (bad) return bad;
      } else if (acc && acc.text !== "") acc.pendingBlank += text.slice(pos, stop); // mixed content only
    }
    if (lt < 0) break;
    const next = text.charCodeAt(lt + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      const end = skipSpecial(text, lt);
      if (end < 0) return fail("the document ends inside a comment, CDATA or declaration (truncated?)", lt);
      if (text.startsWith("<![CDATA[", lt)) {
        if (!stack.length) return fail("CDATA outside the root element", lt);
        addSegment(texts[texts.length - 1]!, text.slice(lt + 9, end - 3));
      }
      pos = end;
      continue;
    }
    let gt = text.indexOf(">", lt);
    if (next === 47 /* / */ && gt > 0 && stack.length > 0) {
      // </name> of the open element, compared in place (the common case: no slice, no trim).
      const open = stack[stack.length - 1]!;
      const nameEnd = lt + 2 + open.name.length;
      if (text.startsWith(open.name, lt + 2) && blankRange(text, nameEnd, gt)) {
        stack.pop();
        open.text = texts.pop()!.text.trim();
        pos = gt + 1;
        continue;
      }
    }
    let body = gt < 0 ? "" : text.slice(lt + 1, gt);
    // A `>` inside a quoted attribute value: walk the tag quote-aware (rare; nvidia-smi never writes one).
    if (gt > 0 && (body.includes('"') || body.includes("'")) && oddQuotes(body)) {
      gt = tagEnd(text, lt);
      body = gt < 0 ? "" : text.slice(lt + 1, gt);
    }
    if (gt < 0 || body.includes("<")) return fail("a tag that is never closed with `>` (truncated?)", lt);
    pos = gt + 1;
    if (body.startsWith("/")) {
      const name = body.slice(1).trim();
      const open = stack.pop();
      if (!open) return fail(`closing tag </${name}> without an opening tag`, lt);
      if (open.name !== name) return fail(`expected </${open.name}>, found </${name}>`, lt);
      open.text = texts.pop()!.text.trim();
      continue;
    }
    const selfClosing = body.endsWith("/");
    if (selfClosing) body = body.slice(0, -1);
    const sp = firstSpace(body);
    const name = sp < 0 ? body : body.slice(0, sp);
    if (!NAME.test(name)) return fail(`"<${body.slice(0, 30)}" is not a tag`, lt);
    let attrs: Record<string, string> = NO_ATTRS;
    if (sp >= 0) {
      attrs = {};
      const rest = body.slice(sp);
      ATTR.lastIndex = 0;
      for (let a = ATTR.exec(rest); a !== null; a = ATTR.exec(rest)) attrs[a[1]!] = decode(a[2] ?? a[3] ?? "");
      const leftover = rest.replace(ATTR, "").trim();
      if (leftover) return fail(`unexpected "${leftover.slice(0, 30)}" in <${name}>`, lt);
    }
    const el: XmlElement = { name, attrs, children: [], text: "" };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else if (root) return fail(`a second root element <${name}>`, lt);
    else root = el;
    if (!selfClosing) {
      stack.push(el);
      texts.push({ text: "", pendingBlank: "" });
    }
  }
  if (stack.length)
    return fail(`the document ends inside <${stack[stack.length - 1]!.name}> (truncated?)`, text.length);
  if (!root) return fail("no root element", 0);
  return { ok: true, root };
}

/** The first child element with this name. */
export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

/** Follows a path of child names. */
export function at(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let cur = el;
  for (const n of names) cur = child(cur, n);
  return cur;
}
