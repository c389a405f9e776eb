/**
 * A paste that holds no NCCL line but the framework's report of the failed NCCL call (the job ran without
 * NCCL_DEBUG=INFO) is an NCCL failure: `analyze` reads it as an NCCL log, not as an unknown format.
 */
import { describe, expect, test } from "vitest";
import { detectKind } from "../../analyze/detect.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { analyzeNcclLog } from "./analyzer.js";

// Shape seen at https://github.com/TaiMingLu/Della-Manual/issues/2 (a Lightning job, every line behind `[rank0]: `):
// PyTorch's C10D_NCCL_CHECK text `NCCL error in: <file>:<line>, <error>, NCCL version <v>` and the detail after it
// (torch/csrc/distributed/c10d/NCCLUtils.hpp, ncclGetErrorWithVersion / getNcclErrorDetailStr).
const lightning = [
  "[rank0]: Traceback (most recent call last):",
  '[rank0]:   File "/home/u7/fit.py", line 40, in <module>',
  "[rank0]:     trainer.fit(model)",
  "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
  "[rank0]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
  "[rank0]: Last error:",
  "[rank0]: socketStartConnect: Connect to 10.8.1.4<51022> failed : Software caused connection abort",
].join("\n");

// Shape seen at https://github.com/NVIDIA/nccl/issues/827: a DeepSpeed traceback, `internal error` and nothing after
// `Last error:`.
const deepspeed = [
  "[2024-01-09 10:02:11,017] [INFO] [comm.py:637:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl",
  "Traceback (most recent call last):",
  '  File "train.py", line 12, in <module>',
  "    torch.distributed.barrier()",
  "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, internal error, NCCL version 2.18.1",
  "ncclInternalError: Internal check failed.",
  "Last error:",
  "",
].join("\n");

describe("the framework's report of a failed NCCL call", () => {
  test("PyTorch's `NCCL error in: …, NCCL version 2.20.5` behind `[rank0]: ` → nccl_log, init failed, the version", () => {
    expect(detectKind(lightning, ANALYZERS).kind).toBe("nccl_log");
    const r = analyzeNcclLog(lightning);
    expect(r.data).toMatchObject({ verdict: "init_failed", ncclVersions: ["2.20.5"] });
  });

  test("a DeepSpeed traceback ending in `internal error, NCCL version 2.18.1` → nccl_log, init failed", () => {
    expect(detectKind(deepspeed, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(deepspeed).data).toMatchObject({ verdict: "init_failed", ncclVersions: ["2.18.1"] });
  });

  test("prose about an NCCL error, without the report's shape, stays unknown", () => {
    const prose =
      "The job failed with an NCCL error in the barrier; NCCL version 2.18 was installed.\n" +
      "Rerun it with NCCL_DEBUG=INFO and attach the NCCL operation log.\n";
    expect(detectKind(prose, ANALYZERS).kind).toBe("unknown");
  });

  // Shape seen at https://github.com/tatsu-lab/stanford_alpaca/issues/207: the watchdog's whole report on one line,
  // quoting NCCL's last WARN. Operations ran ("Some NCCL operations have failed") and a failed completion needs a
  // built communicator: not an init failure; the quoted WARN is IB evidence.
  test("the watchdog's one-line `NCCL error: remote process exited …, NCCL version 2.14.3 … Last error: NET/IB : Got completion …`", () => {
    const line =
      "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down. terminate called after throwing an instance of 'std::runtime_error' what(): NCCL error: remote process exited or there was a network error, NCCL version 2.14.3 ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely. Last error: NET/IB : Got completion from peer 10.9.4.12<41022> with error 12, opcode 0, len 0, vendor err 129";
    expect(detectKind(line, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(line).data;
    expect(d).toMatchObject({ network: "IB", ncclVersions: ["2.14.3"] });
    expect(d.verdict).not.toBe("init_failed");
    expect(d.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_IB_RETRY_EXCEEDED"]);
  });

  // XLA's wrapper turns a failed NCCL call into `<file>:<line>: NCCL operation <call> failed: <ncclGetErrorString>.
  // Last NCCL warning(error) log entry (may be unrelated) '<ncclGetLastError>'.` (https://github.com/openxla/xla/pull/7201);
  // the quoted text is NCCL's own last WARN, here `Cuda failure %d '%s'` (CUCHECK, src/include/cudawrap.h at v2.19.1-1 in
  // https://github.com/NVIDIA/nccl).
  test("XLA's one-line report quoting NCCL's last WARN `Cuda failure 2 'out of memory'` → init failed, the CUDA cause", () => {
    const text = [
      "Traceback (most recent call last):",
      '  File "/srv/job/step.py", line 88, in <module>',
      "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: xla/service/gpu/nccl_api.cc:120: NCCL operation " +
        "ncclCommInitRankConfig(&comm, nranks, id, rank, &config) failed: unhandled cuda error (run with NCCL_DEBUG=INFO " +
        "for details). Last NCCL warning(error) log entry (may be unrelated) 'Cuda failure 2 'out of memory''.",
    ].join("\n");
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(text).data;
    expect(d.verdict).toBe("init_failed");
    expect(d.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_CUDA"]);
    expect(d.warnings[0]!.text).toContain("'Cuda failure 2 'out of memory''");
  });
});

// vLLM's pynccl raises `RuntimeError(f"NCCL error: {error_str}")`, error_str being ncclGetErrorString (src/init.cc,
// https://github.com/NVIDIA/nccl) with no version; shape seen at https://github.com/vllm-project/vllm/issues/39774
// (every line behind the worker's `(Worker_TP1 pid=…) ERROR … [file.py:857]`). Pids and paths are ours.
describe("a framework's `NCCL error: <NCCL's own error string>` with no version", () => {
  const pynccl = [
    "(Worker_TP0 pid=4410) INFO 04-14 13:46:58 [pynccl.py:103] vLLM is using nccl==2.27.5",
    "(Worker_TP0 pid=4410) ERROR 04-14 13:46:59 [multiproc_executor.py:857]     self.comm: ncclComm_t = self.nccl.ncclCommInitRank(",
    '(Worker_TP0 pid=4410) ERROR 04-14 13:46:59 [multiproc_executor.py:857]     raise RuntimeError(f"NCCL error: {error_str}")',
    "(Worker_TP0 pid=4410) ERROR 04-14 13:46:59 [multiproc_executor.py:857] RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
  ].join("\n");

  test("is an NCCL failure, with the version the framework named", () => {
    expect(detectKind(pynccl, ANALYZERS).kind).toBe("nccl_log");
    const r = analyzeNcclLog(`${pynccl}\n`);
    expect([r.data.verdict, r.data.ncclVersions]).toEqual(["init_failed", ["2.27.5"]]);
  });

  test("a sentence that names an NCCL error in other words is not a report", () => {
    const prose =
      "If you see NCCL error: unhandled system error, rerun with NCCL_DEBUG=INFO.\nThen read the WARN lines.";
    expect(detectKind(prose, ANALYZERS).kind).toBe("unknown");
  });
});

// PyTorch's getNcclErrorDetailStr (torch/csrc/distributed/c10d/NCCLUtils.cpp, https://github.com/pytorch/pytorch): its
// reading of the result on a line of its own, then `Last error:` and NCCL's last WARN message (ncclGetLastError). Shapes
// seen in a README's "common issues" (index-file 24098104718) and a fix note (index-file 35588948761).
describe("PyTorch's detail of a failed NCCL result, alone", () => {
  test("`ncclInternalError: Internal check failed.` and the last WARN under `Last error:` → nccl_log, init failed", () => {
    const text = [
      "```",
      "ncclInternalError: Internal check failed.",
      "Last error:",
      "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 27000",
      "```",
    ].join("\n");
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(text).data;
    expect(d.verdict).toBe("init_failed");
    expect(d.warnings.map((w) => w.code)).toContain("NCCL_WARN_DUPLICATE_GPU");
  });

  test("`NCCL error in: <library>, …, NCCL version 2.18.3` with no line number names the version", () => {
    const text =
      "NCCL error in: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so, unhandled cuda error, NCCL version 2.18.3";
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(text).data.ncclVersions).toEqual(["2.18.3"]);
  });
});

// NCCL's WARN from its socket layer relayed by a framework's logger, all a post quoted of a failed run (shape seen
// behind a Ray actor's and vLLM's prefix in a blog post committed to a public repository, index-file 25768005234):
// src/misc/socket.cc's `"socketStartConnect: Connect to %s failed : %s"`, the address as ncclSocketToString prints it.
describe("NCCL's socket WARN relayed by a framework's logger, alone", () => {
  const line =
    "(LLMRayActor pid=7731, ip=10.40.2.8) ERROR 05-14 09:27:33 worker_base.py:581] socketStartConnect: Connect to 172.20.0.9<40113> failed : Software caused connection abort";

  test("is an NCCL log whose one fact is the failed connection; a socket failure alone names no network", () => {
    expect(detectKind(line, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(line).data;
    expect(d).toMatchObject({ network: null, ncclVersions: [] });
    expect(d.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_SOCKET_CONNECT"]);
  });

  test("the same words in a sentence, without NCCL's address shape, are not", () => {
    expect(detectKind("socketStartConnect: Connect to the head node failed : we do not know why", ANALYZERS).kind).toBe(
      "unknown",
    );
  });
});

// DeepEP's answer from ncclGetVersion under EP_BUFFER_DEBUG: `printf("DeepEP initialized with NCCL version: %d.%d.%d
// (loaded library)\n", …)` (a copy of DeepEP's source committed to a public repository, index-file 55747338065).
test("a library's report of the NCCL it loaded (`… NCCL version: 2.31.2 (loaded library)`) is the version", () => {
  const text = [
    "NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 8 nics)",
    "NCCL INFO Using network Libfabric",
    "DeepEP initialized with NCCL version: 2.31.2 (loaded library)",
  ].join("\n");
  expect(analyzeNcclLog(text).data.ncclVersions).toEqual(["2.31.2"]);
});

// vLLM's pynccl line (`logger.info("vLLM is using nccl==%s", …)`, vllm/distributed/device_communicators/pynccl.py in
// https://github.com/vllm-project/vllm) amid a worker's start-up, its colour codes' escape lost (shape seen in Chinese
// notes committed to a public repository, index-file 12053131581): like NCCL's banner, all such a run says of NCCL.
test("a vLLM start-up whose one NCCL line is `vLLM is using nccl==2.21.5`: an NCCL log of that version", () => {
  const text = [
    "INFO 03-14 09:41:06 [config.py:1519] Defaulting to use mp for distributed inference",
    "[1;36m(VllmWorkerProcess pid=4410)[0;0m INFO 03-14 09:41:11 [multiproc_worker_utils.py:225] Worker ready; awaiting tasks",
    "[1;36m(VllmWorkerProcess pid=4410)[0;0m INFO 03-14 09:41:13 [pynccl.py:69] vLLM is using nccl==2.21.5",
    "INFO 03-14 09:41:13 [custom_all_reduce_utils.py:244] reading GPU P2P access cache from /root/.cache/vllm/p2p.json",
  ].join("\n");
  expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
  expect(analyzeNcclLog(text).data).toMatchObject({ ncclVersions: ["2.21.5"], network: null, verdict: "unknown" });
});
