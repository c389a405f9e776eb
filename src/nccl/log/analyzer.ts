import type { AnalyzeContext, AnalyzeOutcome, AnalyzerKind, CommunicatorEvidence } from "../../analyze/types.js";
import { BARE_INFO, CONNECTION_TAIL } from "./bare-messages.js";
import {
  NCCL_CALLER_LINE,
  NCCL_INIT_FRAME,
  NCCL_PG_VERSION,
  NCCL_SOCKET_WARN,
  NCCL_WATCHDOG_LINE,
} from "./caller-lines.js";
import { ChunkFeeder } from "./feeder.js";
import { analyzeNcclLogFile } from "./file.js";
import { NCCL_ERROR_DETAIL, NCCL_ERROR_STRING } from "./record.js";
import { type NcclLogData, reportLog } from "./report.js";
import { analyzeNcclLogChunks } from "./segments.js";
import { LogState } from "./state.js";
import { LOADED_NCCL_LINE } from "./version-lines.js";

/** A streaming NCCL log analyser: `write` takes raw chunks (lines split here), `push` takes one line. */
export type NcclLogStream = {
  push(line: string): void;
  write(chunk: string): void;
  /** `ran`: other evidence in the same input that a communicator completed (nccl-tests rows), when there is some. */
  end(ran?: CommunicatorEvidence): AnalyzeOutcome & { data: NcclLogData };
};

export function createNcclLogStream(ctx: AnalyzeContext = {}): NcclLogStream {
  const feeder = new ChunkFeeder(new LogState());
  return {
    write: (chunk: string) => feeder.write(chunk),
    push: (line: string) => feeder.line(line),
    end: (ran) => {
      const st = feeder.finish();
      // Records that kept no host of their own under a launcher's `host: ` (removed before they were read): its hosts.
      if (st.hosts.size === 0 && st.pidOnlyHosts.size === 0 && (ctx.launcherHosts?.length ?? 0) > 0) {
        for (const h of ctx.launcherHosts!) st.hosts.add(h);
        st.launcherHosts = true;
      }
      return reportLog(st, ctx.inventory, ran ?? ctx.communicatorRan);
    },
  };
}

/** Analyses a whole NCCL log held in memory. */
export function analyzeNcclLog(text: string, ctx: AnalyzeContext = {}): AnalyzeOutcome & { data: NcclLogData } {
  const s = createNcclLogStream(ctx);
  s.write(text);
  return s.end();
}

/**
 * `host:pid:tid [cudaDev] NCCL INFO …`, or `host:pid:tid [cudaDev] file.cc:123 NCCL WARN …` (WARN lines name where
 * NCCL raised them; recent releases the function too, `misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN …`,
 * src/debug.cc's `"[%d] %s:%d (%s) NCCL WARN %s"`), after any launcher prefix; a pasted log often has the pid and tid masked (`XXXXXX`, `<pid>`) or
 * the host stripped (`[0] NCCL INFO …`, `[1] misc/shmutils.cc:103 NCCL WARN …`). NCCL 2.0–2.2 printed no `NCCL` before the level (`host:pid:tid [0] INFO …`);
 * a fork brackets the process and names the source (`[host:pid:tid] [init.cc:1720] NCCL INFO …`, or glued as
 * `[host][pid:tid][dev][init.cc:1815] NCCL WARN …`, shape seen at https://github.com/OpenRLHF/OpenRLHF/issues/795; or names
 * the thread after the device, `host:pid:tid [0][main] NCCL WARN …`, seen at https://github.com/meta-pytorch/torchcomms/issues/523);
 * a record whose `[dev]` a page dropped (`**host:pid:tid NCCL INFO Call to connect returned …**`, seen at
 * https://github.com/horovod/horovod/issues/1408);
 * a rendered paste
 * may have turned the source into a Markdown link (`transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN …`);
 * a record with its time (NCCL_DEBUG_TIMESTAMP_FORMAT's `[%F %T] `, src/debug.cc) and the host a page cut away
 * (`[2026-02-09 11:42:17] NCCL INFO Channel 02/0 : …`, shape seen in a guide committed to a public repository,
 * index-file 44542130751).
 */
const LOG_LINE =
  /[^\s:]{1,255}:(?:\d+|[Xx*]+|<\w+>):(?:\d+|[Xx*]+|<\w+>)\]? \[[\w./-]+(?::\d+)?\](?:\[[\w.-]{1,64}\])? (?:\S+:\d+\S* (?:\(\w+\) )?)?(?:NCCL (?:INFO|WARN|TRACE)|INFO|WARN)\b|(?:^|[\s>)|*:])\[\d+\] (?:[\w./-]+\.(?:cc|cu|c|h):\d+ )?NCCL (?:INFO|WARN)\b|(?:^|[\s>)|*:])\[\d+\] [\w./-]+\.(?:cc|cu|c|h):\d+ WARN \S|^\s*(?:\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\] ?)?NCCL (?:INFO|WARN) \S|^\s*(?:INFO|WARN) NET\/(?:IB|Socket|Plugin) ?: ?\S|^\s*[\w./-]+\.(?:h|cc|cu):\d+ (?:\(\w+\) )?(?:NCCL )?WARN \S|\[[\w.-]+:pid=\d+\] NCCL (?:INFO|WARN)\b|：NCCL WARN \S|\[[\w.-]{1,255}\]\[\d+:\d+\]\[\d+\]\[[\w./-]+:\d+\] NCCL (?:INFO|WARN)\b|(?:^|[\s*>])[\w.-]{1,255}:\d+:\d+ NCCL (?:INFO|WARN) \S/;
/** NCCL's own record `host:pid:tid [dev] [file.cc:123 ]NCCL LEVEL`, each one where a line holds several. */
const RECORDS =
  /[^\s:]{1,255}:(?:\d+|[Xx*]+|<\w+>):(?:\d+|[Xx*]+|<\w+>) \[\d+\](?:\[[\w.-]{1,64}\])? (?:\S+:\d+\S* (?:\(\w+\) )?)?NCCL (?:INFO|WARN|TRACE)\b/g;
// PyTorch's own NCCL layer (NCCL_CALLER_LINE, caller-lines.ts): no NCCL line by itself, but beside NCCL's banner (or
// the process group's own naming of the NCCL version, NCCL_PG_VERSION) it is the rest of that NCCL log.
/** The banner rank 0 prints: `NCCL version 2.18.3+cuda12.2`, ending its line. */
const BANNER_LINE = /(?:^|[\s:\]>])NCCL version \d+\.\d+\.\d+\+cuda[\d.]+\s*$/;
/**
 * A framework's report of a failed NCCL call — the whole paste when NCCL_DEBUG was not set: PyTorch's
 * `NCCL error in: <file>:<line>, <error>, NCCL version 2.21.5` (C10D_NCCL_CHECK with ncclGetErrorWithVersion,
 * torch/csrc/distributed/c10d/NCCLUtils.hpp, https://github.com/pytorch/pytorch), its watchdog's
 * `NCCL error: remote process exited or there was a network error, NCCL version 2.14.3`, and XLA's
 * `NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: …` (https://github.com/openxla/xla/pull/7201),
 * and vLLM's pynccl `NCCL error: <ncclGetErrorString(result)>` with no version (NCCL_ERROR_STRING, record.ts), and
 * PyTorch's watchdog timing out an NCCL collective (NCCL_WATCHDOG_LINE, caller-lines.ts), and NCCL's last WARN relayed
 * by a framework's logger (NCCL_SOCKET_WARN, caller-lines.ts).
 * It names the failed call and the error NCCL returned, so the text is an NCCL failure even with no NCCL line.
 */
const ERROR_REPORT_LINE = new RegExp(
  `NCCL error(?: in: \\S+?(?::\\d+)?,|:) .*\\bNCCL version \\d+\\.\\d+\\.\\d+|NCCL operation nccl\\w+\\(.*\\) failed: |${NCCL_ERROR_STRING.source}|${NCCL_WATCHDOG_LINE.source}|${NCCL_ERROR_DETAIL.source}|${NCCL_SOCKET_WARN.source}`,
);

/** nccl-tests' failure line (`Test NCCL failure common.cu:1188 '…'`, src/common.h of https://github.com/NVIDIA/nccl-tests). */
const NCCL_TESTS_FAILURE = /\bTest NCCL failure \S+:\d+ /;

/**
 * How many of the non-empty lines of `head` are NCCL log lines, and their share. Prose that mentions "NCCL INFO"
 * (a README, a design note) has none of these shapes.
 */
export function ncclLogLines(head: string): {
  log: number;
  banner: number;
  report: number;
  share: number;
  bare: number;
  bareShare: number;
  tails: number;
  quotedBlocks: number;
} {
  let lines = 0;
  const blocks = quotedMessageBlocks(head);
  let bare = 0;
  let tails = 0;
  let log = 0;
  let banner = 0;
  let caller = 0;
  let report = 0;
  for (const line of head.split("\n")) {
    if (line.trim() === "") continue;
    lines++;
    if (LOG_LINE.test(line)) {
      // A line holding several records (a page that flattened a node's log into one paragraph, ranks writing into one
      // line) counts as the lines it holds.
      const records = line.match(RECORDS)?.length ?? 1;
      log += Math.max(1, records);
      lines += Math.max(1, records) - 1;
    } else if (BANNER_LINE.test(line) || NCCL_PG_VERSION.test(line) || LOADED_NCCL_LINE.test(line)) banner++;
    else if (NCCL_CALLER_LINE.test(line)) caller++;
    else if (BARE_INFO.test(line.trimStart())) bare++;
    else if (CONNECTION_TAIL.test(line.trimStart())) tails++;
    // Not `else`: the watchdog's `[E ProcessGroupNCCL.cpp:460] … what(): NCCL error: …` is both. nccl-tests' own
    // `Test NCCL failure common.cu:N '<NCCL's error string> / '` belongs to nccl-tests' output, not to an NCCL log.
    if (ERROR_REPORT_LINE.test(line) && !NCCL_TESTS_FAILURE.test(line)) report++;
    // A backtrace's frame inside NCCL's init: a report of NCCL's failure too.
    else if (NCCL_INIT_FRAME.test(line)) report++;
  }
  const share = lines === 0 ? 0 : (log + banner + caller) / lines;
  return {
    log,
    banner,
    report,
    share,
    bare,
    bareShare: lines === 0 ? 0 : (log + banner + bare) / lines,
    tails,
    quotedBlocks: blocks,
  };
}

/** Indented as a code block: four spaces in Markdown, of which a wrapper in front may have taken one or two. */
const INDENTED = /^(?: {2,}|\t)/;
const messageAlone = (l: string): boolean => BARE_INFO.test(l.trimStart()) || CONNECTION_TAIL.test(l.trimStart());
/**
 * NCCL messages in a block of their own that no prose makes: a page's quote of what NCCL printed. Two are enough: a
 * note's `NCCL should log:` then a fenced `NET/OFI Selected Provider is cxi (found 2 nics)` and `Using network AWS
 * Libfabric` (shape seen in a cluster's notes committed to a public repository, index-file 58506228257); one alone
 * may be a sentence's.
 */
const QUOTED_BLOCK = 2;

/**
 * Quotes of NCCL's messages stripped of their prefix (bare-messages.ts) amid prose: a block of nothing else (blank
 * lines, a code fence's included, set it apart; a blank line between two of its messages does not end it, as a page
 * that double-spaced its lines leaves them), of QUOTED_BLOCK lines at least, or indented as a code block (a note's
 * `NCCL logged:` then `    NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_3'`).
 */
function quotedMessageBlocks(head: string): number {
  let found = 0;
  let block: string[] = [];
  const close = () => {
    const quoted = block.length >= QUOTED_BLOCK || block.every((l) => INDENTED.test(l));
    if (block.length > 0 && quoted && block.every(messageAlone)) found++;
    block = [];
  };
  let blank = false;
  for (const line of head.split("\n")) {
    if (line.trim() === "") {
      blank = true;
      continue;
    }
    // A blank line between two messages of a block of messages goes on with it (a page that double-spaced its lines).
    if (blank && !(block.every(messageAlone) && messageAlone(line))) close();
    blank = false;
    block.push(line);
  }
  close();
  return found;
}

/** At least 3 log lines making at least 5% of the text (NCCL's start-up amid a job's own output), or a short text mostly of them. */
function looksLikeNcclLog(n: ReturnType<typeof ncclLogLines>): boolean {
  return (n.log >= 3 && n.share >= 0.05) || (n.log >= 1 && n.share >= 0.5);
}

/**
 * A text forced to be read as an NCCL log (`--kind nccl_log`) that holds no NCCL line — a training log of a run
 * without NCCL_DEBUG=INFO — says nothing about NCCL: it is not analysed (no data), so `analyze` reports FAIL and exits
 * 2 instead of a PASS over "verdict unknown". The problem that says why stays.
 */
function unlessNothingRead(o: AnalyzeOutcome): AnalyzeOutcome {
  const nothing = o.problems?.some((p) => p.code === "nccl_log.no_nccl_lines" || p.code === "nccl_log.empty");
  return nothing ? { ...o, data: null, findings: [] } : o;
}

export const ncclLogAnalyzer: AnalyzerKind = {
  kind: "nccl_log",
  detect(head: string): number {
    const n = ncclLogLines(head);
    if (!looksLikeNcclLog(n)) {
      // NCCL's banner, printed as NCCL prints it (`NCCL version 2.24.3+cuda12.4` alone on its line), amid a program's
      // own output: the one NCCL line a run without NCCL_DEBUG keeps (shape seen in a benchmark's log committed to a
      // public repository); weakest, any other kind's lines win.
      if (n.banner > 0) return 0.5;
      // A traceback ending in the framework's report of the failed NCCL call, or one NCCL record quoted amid prose
      // (`[date] host:pid:tid [0] func:line NCCL WARN NET/OFI …`, all an issue shows of the run): weak, any other
      // kind's lines win.
      if (n.report > 0 || n.log > 0) return 0.55;
      // INFO messages stripped of their prefix and level (bare-messages.ts): at least 3, and most of the text; or two
      // connection lines cut to their ranks and transport (a shape no other tool prints).
      if ((n.bare >= 3 && n.bareShare >= 0.5) || n.tails >= 2) return 0.7;
      // A block of such messages quoted amid prose: weaker still, any other kind's lines win.
      return n.quotedBlocks > 0 ? 0.5 : 0;
    }
    // A run.log of nccl-tests also holds NCCL lines; the nccl-tests analyser covers both then.
    return /^\s*(?:#\s*)?nThread \d+ nGpus|Avg bus bandwidth|^\s*(?:#\s*)?size\s+count\s+type/m.test(head) ? 0.6 : 0.9;
  },
  analyze: (text, ctx) => unlessNothingRead(analyzeNcclLog(text, ctx)),
  createStream: (ctx) => {
    const s = createNcclLogStream(ctx);
    return { ...s, end: () => unlessNothingRead(s.end()) };
  },
  analyzeFile: async (path, ctx) => unlessNothingRead(await analyzeNcclLogFile(path, ctx)),
  analyzeChunks: async (chunks, ctx) => unlessNothingRead(await analyzeNcclLogChunks(chunks, ctx)),
};
