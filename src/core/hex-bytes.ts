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

/** The bytes a text spells out (`head`) and the length it claims (`length`): every byte past `head` is zero. */
export type HexBytes = { head: Uint8Array; length: number };

/**
 * The common form, as `encodeBytesHex` writes it (no whitespace): decoded natively (`Buffer.from(…, "hex")`, which
 * stops at the first pair that is not hex, so a full-length result means every pair was hex), the trailing zeros
 * left implicit. undefined when the text is not in that form.
 */
function decodePlain(text: string): HexBytes | null | undefined {
  const star = text.indexOf("*");
  const hex = star < 0 ? text : text.slice(0, star);
  const head = Buffer.from(hex, "hex");
  if (head.length * 2 !== hex.length) return undefined;
  if (star < 0) return { head, length: head.length };
  const n = text.slice(star + 1);
  if (!/^\d{1,7}$/.test(n)) return undefined;
  const length = Number(n);
  return length < head.length || length > 1 << 20 ? null : { head, length };
}

/**
 * The bytes of `encodeBytesHex`'s text (whitespace ignored) without writing out its trailing zeros: a fleet run
 * reads ~25 bridges' 4096-byte config spaces per node, of which only the first few hundred bytes are not zero.
 * null when the text is not in that form or claims over 1 MiB.
 */
export function decodeHexHead(text: string): HexBytes | null {
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
  return { head: Uint8Array.from(bytes), length: total };
}

/** The bytes of `encodeBytesHex`'s text (whitespace ignored); null when it is not in that form or claims over 1 MiB. */
export function decodeBytesHex(text: string): Uint8Array | null {
  const h = decodeHexHead(text);
  if (!h) return null;
  const out = new Uint8Array(h.length);
  out.set(h.head);
  return out;
}
