/** Text output is lines: values written into it are kept on one line each, whatever they hold. */

/**
 * Line breaks a value may carry: newline, carriage return, vertical tab, form feed, NEL, and the Unicode line and
 * paragraph separators (terminals and pagers start a new line at several of them).
 */
const LINE_BREAK = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;
const LINE_BREAKS = /[\n\r\u000b\u000c\u0085\u2028\u2029]/g;
const SHOWN: Record<string, string> = { "\n": "\\n", "\r": "\\r" };

/** One value on one line: each line break it holds is shown as an escape (`\n`, `\x0b`, `\u2028`). */
export function oneLine(value: string): string {
  if (!LINE_BREAK.test(value)) return value;
  return value.replace(LINE_BREAKS, (c) => {
    const code = c.charCodeAt(0);
    return SHOWN[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
  });
}

/**
 * A result as a text renderer may write it: every string in it (values and keys, however deep: arrays, plain
 * objects, Maps and Sets) on one line. Text reports are lines, and a value read from a host, a pasted file or an API
 * server that holds a line break could otherwise start a line of its own (`PASS: 0 error(s)`) the report never
 * wrote. This is applied to the whole result before any text renderer sees it, so every kind is safe by construction;
 * the lines a renderer writes itself are untouched. Other objects (dates, class instances) are passed as they are.
 */
export function lineSafe<T>(value: T): T {
  return lineSafeIn(value, new Map()) as T;
}

function lineSafeIn(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === "string") return oneLine(value);
  if (typeof value !== "object" || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const v of value) out.push(lineSafeIn(v, seen));
    return out;
  }
  if (value instanceof Map) {
    const out = new Map();
    seen.set(value, out);
    for (const [k, v] of value) out.set(lineSafeIn(k, seen), lineSafeIn(v, seen));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set();
    seen.set(value, out);
    for (const v of value) out.add(lineSafeIn(v, seen));
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
  seen.set(value, out);
  for (const [k, v] of Object.entries(value)) out[oneLine(k)] = lineSafeIn(v, seen);
  return out;
}
