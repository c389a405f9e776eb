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

  test("a training log that never names the watchdog is not read as an NCCL log", () => {
    const text = ["training ...", "iteration 10 | loss 2.31", "iteration 20 | loss 2.12"].join("\n");
    expect(kindAndData(text).kind).not.toBe("nccl_log");
  });
});
