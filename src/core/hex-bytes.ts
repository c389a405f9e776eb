/**
 * Binary files (a PCI function's config space) travel as text: hex byte pairs, where a trailing run of zero bytes
 * may be written `*N` — "zero bytes up to N in all" (4096 bytes of config space are mostly zeros). Pure.
 */

/** `01ab0000…00` (4096 bytes) → `01ab*4096`. */
export function encodeBytesHex(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("hex");
  return end === bytes.length ? hex : `${hex}*${bytes.length}`;
}

function digit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

const PLAIN = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * The common form, as `encodeBytesHex` writes it (no whitespace): decoded natively (`Buffer.from(…, "hex")`), since a
 * fleet run decodes ~25 bridges' config spaces per node. undefined when the text is not in that form.
 */
function decodePlain(text: string): Uint8Array | null | undefined {
  const star = text.indexOf("*");
  const hex = star < 0 ? text : text.slice(0, star);
  if (!PLAIN.test(hex)) return undefined;
  let total = hex.length / 2;
  if (star >= 0) {
    const n = text.slice(star + 1);
    if (!/^\d{1,7}$/.test(n)) return undefined;
    total = Number(n);
    if (total < hex.length / 2 || total > 1 << 20) return null;
  }
  const out = new Uint8Array(total);
  out.set(Buffer.from(hex, "hex"));
  return out;
}

/** The bytes of `encodeBytesHex`'s text (whitespace ignored); null when it is not in that form or claims over 1 MiB. */
export function decodeBytesHex(text: string): Uint8Array | null {
  const fast = decodePlain(text);
  if (fast !== undefined) return fast;
  // One pass over the characters (whitespace allowed): hex pairs, then an optional `*N`.
  const bytes: number[] = [];
  let i = 0;
  let hi = -1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    const d = digit(c);
    if (d < 0) break;
    if (hi < 0) hi = d;
    else {
      bytes.push(hi * 16 + d);
      hi = -1;
    }
  }
  if (hi >= 0) return null;
  let total = bytes.length;
  if (i < text.length) {
    if (text.charCodeAt(i) !== 42) return null;
    const m = /^\s*(\d{1,7})\s*$/.exec(text.slice(i + 1));
    if (!m) return null;
    total = Number(m[1]);
    if (total < bytes.length || total > 1 << 20) return null;
  }
  const out = new Uint8Array(total);
  out.set(bytes);
  return out;
}
