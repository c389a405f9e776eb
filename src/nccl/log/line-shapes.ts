/**
 * Shapes of the lines the scanner (scan.ts) reads besides NCCL's usual records: old NCCL's records, a WARN cut to its
 * source, a return chain with its head elided. Pure.
 */
import { indexInLine } from "./line.js";

/** `include/socket.h:344 WARN `: an NCCL source file and line, then the level (no host, no `NCCL`). */
export const SOURCE_WARN = /^[\w./-]+\.(?:h|cc|cu):\d+ WARN /;
/**
 * NCCL 2.0–2.2: `host:pid:tid [0] INFO ` or `host:pid:tid [0] include/socket.h:185 WARN `; a WARN also with the host
 * alone (`host [0] misc/ibvwrap.cu:269 WARN `, NCCL 2.1 in https://github.com/horovod/horovod/issues/98): its source
 * file names it NCCL's.
 */
export const OLD_LINE =
  /^\S+(?::\d+:\d+ \[\d+\] (?:[\w./-]+:\d+ )?(INFO|WARN)| \[\d+\] [\w./-]+\.(?:h|cc|cu|c):\d+ (WARN)) /;

/** A level and a NET/ message with no prefix: NCCL ≤ 2.4's record (no `NCCL` word) stripped of its host. */
export const OLD_NET_MESSAGE = /^(?:INFO|WARN) NET\/(?:IB|Socket|Plugin) ?:/;

/** Where the path under the last `/src/` of the word at `at` starts (`at` itself when the word has none). */
export function underSrc(s: string, at: number, end: number): number {
  const sp = indexInLine(s, " ", at, end);
  const word = s.slice(at, sp < 0 ? end : sp);
  const src = word.lastIndexOf("/src/");
  return src < 0 ? at : at + src + 5;
}

/** An elision before a return chain's kept step: `... -> `, `… -> `. */
export const ELIDED_CHAIN_HEAD = /^(?:\.{3}|…)\s*->\s*/;
/** A return chain's step as include/checks.h prints it: `enqueue.cc:3053 -> 2`, `transport/net_ib.cc:1021 -> 2`. */
export const RETURN_STEP = /^[\w/.-]+\.cc?u?:\d+ -> \d+/;
