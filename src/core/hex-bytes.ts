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

/** The bytes of `encodeBytesHex`'s text (whitespace ignored); null when it is not in that form or claims over 1 MiB. */
export function decodeBytesHex(text: string): Uint8Array | null {
  const m = /^([0-9a-fA-F\s]*?)\s*(?:\*\s*(\d{1,7}))?\s*$/.exec(text);
  if (!m) return null;
  const hex = (m[1] ?? "").replace(/\s+/g, "");
  if (hex.length % 2 !== 0) return null;
  const total = m[2] === undefined ? hex.length / 2 : Number(m[2]);
  if (total < hex.length / 2 || total > 1 << 20) return null;
  const out = new Uint8Array(total);
  for (let i = 0; i < hex.length / 2; i++)
    out[i] = digit(hex.charCodeAt(2 * i)) * 16 + digit(hex.charCodeAt(2 * i + 1));
  return out;
}
