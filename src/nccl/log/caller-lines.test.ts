/**
 * PyTorch's watchdog reporting an NCCL collective that timed out, with no NCCL line in the paste: the text is an NCCL
 * failure report (kind nccl_log) whose network and verdict are unknown. The message is WorkNCCL::checkTimeout's
 * `"Watchdog caught collective operation timeout: " << WorkNCCL(…)` and the heartbeat monitor's `ProcessGroupNCCL's
 * watchdog got stuck for N seconds` (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, https://github.com/pytorch/pytorch).
 * Lines written here in the shapes seen at https://github.com/NVIDIA/Megatron-LM/issues/1207 (`[rankN]:[E…]` prefix)
 * and https://github.com/snowflakedb/ArcticTraining/issues/219 (the heartbeat monitor).
 */
import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "../../analyze/index.js";

const watchdog = (rank: number) =>
  `[rank${rank}]:[E1002 10:43:59.207118331 ProcessGroupNCCL.cpp:607] [Rank ${rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.`;

function kindAndData(text: string) {
  const [e] = analyzeTranscript("paste.txt", text);
  const d = (e?.data ?? {}) as { network?: unknown; verdict?: unknown };
  return { kind: e?.kind, network: d.network, verdict: d.verdict };
}

describe("a paste of PyTorch's NCCL watchdog only", () => {
  test("training output then the watchdog's reports → an NCCL log, network and verdict unknown", () => {
    const text = [
      "training ...",
      "[before the start of training step] datetime: 2024-10-02 10:33:58",
      watchdog(2),
      watchdog(0),
    ].join("\n");
    expect(kindAndData(text)).toEqual({ kind: "nccl_log", network: null, verdict: "unknown" });
  });

  test("the heartbeat monitor's line alone", () => {
    const text =
      "[rank7]:[E626 05:14:36.393067540 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 7] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.";
    expect(kindAndData(text).kind).toBe("nccl_log");
  });

  // PyTorch numbers a process group's collectives (WorkNCCL's `SeqNum`, seqCollective_ in ProcessGroupNCCL.cpp): an async
  // error on the 2,871,104th says the communicator ran collectives before it, so the failure is no init's. Shape seen in
  // a training log's tail committed to a public repository (index-file 58179996700); ranks and numbers ours.
  test("an async NCCL error on a collective numbered past 1 is a failure after init, not an init failure", () => {
    const asyncError = (seq: number) =>
      `[rank3]:[E902 23:41:46.517302118 ProcessGroupNCCL.cpp:542] [Rank 3] Collective WorkNCCL(SeqNum=${seq}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) raised the following async exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5`;
    const text = (seq: number) =>
      [
        asyncError(seq),
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
      ].join("\n");
    expect(kindAndData(text(1834211))).toEqual({ kind: "nccl_log", network: null, verdict: "unknown" });
    // The first collective of the group may be the one whose communicator failed to come up: nothing ran before it.
    expect(kindAndData(text(1)).verdict).toBe("init_failed");
  });

  test("a training log that never names the watchdog is not read as an NCCL log", () => {
    const text = ["training ...", "iteration 10 | loss 2.31", "iteration 20 | loss 2.12"].join("\n");
    expect(kindAndData(text).kind).not.toBe("nccl_log");
  });
});

// PyTorch's process group naming the NCCL it loaded (ProcessGroupNCCL.cpp's `ProcessGroupNCCL environments: NCCL
// version: …`), in glog's layout as seen at https://github.com/meta-pytorch/torchforge/pull/55; pids and times ours.
describe("PyTorch's NCCL process group naming the NCCL version", () => {
  const glog = [
    "I0820 14:27:21.482718 4030958 ProcessGroupNCCL.cpp:980] [PG ID 1 PG GUID 1 Rank 1] ProcessGroupNCCL environments: NCCL version: 2.25.1, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3, TORCH_NCCL_BLOCKING_WAIT: 0",
    "W0820 14:27:21.486436 4030959 ProcessGroupNCCL.cpp:915] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now.",
    "I0820 14:27:21.486558 4030959 ProcessGroupNCCL.cpp:971] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL environments: NCCL version: 2.25.1, TORCH_NCCL_ASYNC_ERROR_HANDLING: 3",
    "I0820 14:27:21.512101 4030959 ProcessGroupNCCL.cpp:2589] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL created ncclComm_ 0x55a1d7e03b90 on CUDA device: 0",
  ].join("\n");

  test("its lines alone are an NCCL log whose version is the one they name", () => {
    const [e] = analyzeTranscript("pg.log", glog);
    expect(e?.kind).toBe("nccl_log");
    expect((e?.data as { ncclVersions?: string[] } | undefined)?.ncclVersions).toEqual(["2.25.1"]);
  });

  test("beside NCCL's own lines the version is the same one, read once", () => {
    const text = `${glog}\ntrn-3:4030958:4030990 [1] NCCL INFO Using network IB\nNCCL version 2.25.1+cuda12.8\n`;
    const [e] = analyzeTranscript("pg.log", text);
    expect((e?.data as { ncclVersions?: string[] } | undefined)?.ncclVersions).toEqual(["2.25.1"]);
  });
});
