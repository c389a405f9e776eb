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
