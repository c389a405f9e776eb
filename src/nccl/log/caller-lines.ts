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
