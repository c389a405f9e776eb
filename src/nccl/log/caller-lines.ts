import { isCrashLine } from "../../core/crash-lines.js";
import { NCCL_ERROR_DETAIL, NCCL_ERROR_STRING } from "./record.js";
import type { LogState } from "./state.js";
import { addWarning, failureLine } from "./warnings.js";

/**
 * PyTorch's NCCL process group reporting on the NCCL work it runs, with no NCCL line of its own: the watchdog's
 * `[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, …) ran for 600013
 * milliseconds before timing out.` (WorkNCCL::checkTimeout, `"Watchdog caught collective operation timeout: "` followed
 * by the WorkNCCL it timed, torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, https://github.com/pytorch/pytorch) and its
 * heartbeat monitor's `ProcessGroupNCCL's watchdog got stuck for 480 seconds …` (same file). A paste of only these is
 * still the report of an NCCL collective that never finished: an NCCL log whose network and verdict are unknown.
 */
export const NCCL_WATCHDOG_LINE =
  /Watchdog caught collective operation timeout: WorkNCCL\(|ProcessGroupNCCL's watchdog got stuck for \d+ seconds/;

/**
 * The work PyTorch's NCCL process group reports on (a watchdog's timeout, an async exception the watchdog raised:
 * `Collective WorkNCCL(SeqNum=2871104, OpType=ALLREDUCE, …) raised the following async exception: …`), numbered by the
 * process group's collectives in order (`seqCollective_`, WorkNCCL's `operator<<`, ProcessGroupNCCL.cpp). A number
 * above 1 says collectives were launched before it, so the communicator was built: a failure it reports is no init's.
 */
const WORK_SEQ = /\bWorkNCCL\(SeqNum=(\d+), OpType=/;

/** Counts the collectives a line of PyTorch's says ran before the work it reports (WORK_SEQ). */
export function workLaunchedAfterOthers(st: LogState, text: string): void {
  if (!text.includes("WorkNCCL(")) return;
  const seq = WORK_SEQ.exec(text);
  if (seq && Number(seq[1]) > 1) st.commRan++;
}

/**
 * A stack frame inside NCCL's communicator init, as a crash's backtrace prints it: Abseil's `PC: @ 0x7f3c… (unknown)
 * bootstrapRoot()`, gdb's `#4 0x… in ncclCommInitRank () from …/libnccl.so.2`, glibc's `libnccl.so.2(initTransportsRank
 * +0x9c1)[0x7f…]` — an address and one of the functions ncclCommInitRank runs through (src/init.cc, src/bootstrap.cc,
 * src/graph/topo.cc in https://github.com/NVIDIA/nccl; an API function also as its `pnccl` name). With a crash's signal
 * line in the same text, the process died in NCCL's init.
 */
/** Words one of NCCL_INIT_FRAME's functions holds: a cheap test before the whole pattern, on every line of a log. */
const INIT_FRAME_WORD = /bootstrap|ncclComm|initTransports|ncclT|ncclProxy/;
export const NCCL_INIT_FRAME =
  /^(?=.*\b0x[0-9a-fA-F]{4,}).*\b(?:bootstrapRoot|bootstrapInit|bootstrapCreateRoot|bootstrapAllGather|p?ncclCommInitRank\w*|p?ncclCommInitAll|initTransportsRank|ncclTransportP2pSetup|ncclTopoGetSystem|ncclTopoCompute|ncclProxyCreate)\b/;

/**
 * PyTorch's NCCL process group naming the NCCL it loaded: glog's `I0820 14:27:21.482718 4030958
 * ProcessGroupNCCL.cpp:980] [PG ID 1 PG GUID 1 Rank 1] ProcessGroupNCCL environments: NCCL version: 2.25.1, …` (and its
 * `ProcessGroupNCCL initialization options: …, NCCL version: 2.20.5, …` before; torch/csrc/distributed/c10d/
 * ProcessGroupNCCL.cpp, https://github.com/pytorch/pytorch; shape in https://github.com/meta-pytorch/torchforge/pull/55).
 */
export const NCCL_PG_VERSION = /\bProcessGroupNCCL\b.*?\bNCCL version: (\d+\.\d+\.\d+)/;

/**
 * A line of PyTorch's NCCL process group: `[E ProcessGroupNCCL.cpp:458]`, `[rank2]:[E1002 …ProcessGroupNCCL.cpp:607]`,
 * glog's `I0820 14:27:21.482718 4030958 ProcessGroupNCCL.cpp:980]`, or, with the logger's prefix already taken off,
 * the process group's own `[PG ID 0 PG GUID 0(default_pg) Rank 0] …` (its logPrefix, ProcessGroupNCCL.cpp).
 */
export const NCCL_CALLER_LINE =
  /^\s*(?:\[rank\d+\]:)?(?:\[[EWIF]\s?[\d :.-]*|[EWIF]\d{4} [\d:.]+ +\d+ )ProcessGroupNCCL\.cpp:\d+\]|^\s*\[PG ID \d+ PG GUID \S+ Rank \d+\] /;

/**
 * XLA's `file:line: NCCL operation ncclCommInitRank(…) failed: unhandled cuda error (…). Last NCCL warning(error) log
 * entry (may be unrelated) '…'.` (ToStatus of its NCCL wrapper, https://github.com/openxla/xla/pull/7201: the call,
 * ncclGetErrorString, then ncclGetLastError, which is NCCL's last WARN message): a line of NCCL's, relayed.
 */
const CALL_REPORT = /NCCL operation nccl\w+\(.*\) failed: /;
/** An application's or nccl-tests' report that an NCCL call failed (`Test NCCL failure common.cu:908 '…'`), XLA's too. */
export const FAILURE_LINE = new RegExp(
  `unhandled system error|NCCL error|ncclSystemError|ncclInternalError|Test NCCL failure|${CALL_REPORT.source}|${NCCL_ERROR_STRING.source}`,
);
/**
 * NCCL's WARN from its socket layer relayed by a framework's logger with no NCCL record around it:
 * `socketStartConnect: Connect to 172.19.0.3<51207> failed : Software caused connection abort` (src/misc/socket.cc's
 * `"socketStartConnect: Connect to %s failed : %s"`, the address as ncclSocketToString prints it, `<port>` after it;
 * shape seen behind a Ray actor's and vLLM's prefix in a blog post committed to a public repository, index-file
 * 25768005234): a line of NCCL's, relayed.
 */
export const NCCL_SOCKET_WARN = /\bsocketStartConnect: Connect to \S+<\d+> failed : \S/;

/** PyTorch's `Last error:` alone on its line, under its report of the failed call: NCCL's last WARN follows. */
const LAST_ERROR = /^\s*Last error:\s*$/;

/**
 * A line with no NCCL record in it, read for an application's report of an NCCL failure, PyTorch's watchdog, a crash
 * during init, or NCCL's last WARN quoted under PyTorch's `Last error:` (`quoted`: the line before was that). `text` is
 * the line from `p`, where its prefixes end. Returns whether this line is `Last error:` alone (the next one is quoted).
 */
export function failureOrCallerLine(
  st: LogState,
  s: string,
  start: number,
  p: number,
  end: number,
  text: string,
  quoted: boolean,
): boolean {
  // PyTorch's `ncclInternalError: Internal check failed.` starts with a word and a colon, as a pdsh host would: the
  // whole line is read for it.
  const detail = NCCL_ERROR_DETAIL.test(s.slice(start, end));
  if (/[\u0000-\u0008\u000e-\u001a\ufffd]/.test(text)) st.binaryLines++;
  else if (detail || FAILURE_LINE.test(text)) {
    // A framework's report of the NCCL call that failed (XLA's `NCCL operation ncclX(…) failed: `, NCCL's own words
    // after `NCCL error: `, PyTorch's reading of the result): a line of this NCCL log.
    if (detail || CALL_REPORT.test(text) || NCCL_ERROR_STRING.test(text)) st.ncclLines++;
    failureLine(st, s, detail ? start : p, end);
  } else if (NCCL_WATCHDOG_LINE.test(text))
    st.ncclLines++; // PyTorch timing out an NCCL collective
  else if (LAST_ERROR.test(text)) return true;
  else if (isCrashLine(text)) {
    st.crashLines++;
    if (st.initStarted > 0 && st.initComplete === 0) st.crashedInInit++;
  } else if (text.includes("0x") && INIT_FRAME_WORD.test(text) && NCCL_INIT_FRAME.test(text)) {
    // A backtrace's frame inside NCCL's init: a line of this NCCL failure.
    st.ncclLines++;
    st.initFrames++;
  } else if (NCCL_SOCKET_WARN.test(text)) {
    st.ncclLines++;
    addWarning(st, text.slice(NCCL_SOCKET_WARN.exec(text)!.index).trim(), "");
  } else if (quoted) {
    // NCCL's last WARN message, quoted on the line under PyTorch's `Last error:` (ncclGetLastError).
    st.ncclLines++;
    addWarning(st, text.trim(), "");
  }
  return false;
}
