/**
 * How NCCL reads an integer variable (NCCL_IB_DISABLE, NCCL_IB_TIMEOUT, …): `ncclLoadParam` in NVIDIA/nccl
 * src/misc/param.cc calls `strtoll(str, nullptr, 0)` and keeps the default only when errno is set (out of range)
 * (https://github.com/NVIDIA/nccl/blob/master/src/misc/param.cc). strtoll with base 0 (C11 7.22.1.4) skips leading
 * white space, takes an optional sign, reads `0x…` as hex, `0…` as octal, else decimal, stops at the first character
 * that is not a digit of that base, and gives 0 when no digit was read. So `01` is 1, `2` is 2, `0x1` is 1, `1abc` is
 * 1, `yes` is 0 and `08` is 0 (an octal 0, then a stray 8).
 */
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** The value NCCL takes for `text`; null when strtoll reports out of range (NCCL then keeps its default). */
export function ncclInteger(text: string): bigint | null {
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:(0[xX])([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))?/.exec(text);
  if (!m || (m[3] === undefined && m[4] === undefined && m[5] === undefined)) return 0n;
  const digits = m[3] !== undefined ? `0x${m[3]}` : m[4] !== undefined ? `0o${m[4].slice(1) || "0"}` : m[5]!;
  const magnitude = BigInt(digits);
  const value = m[1] === "-" ? -magnitude : magnitude;
  return value > INT64_MAX || value < INT64_MIN ? null : value;
}
