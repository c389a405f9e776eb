import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

/**
 * The devices of a log come in NCCL's own order: the index `[N]` it gives each device in its `NET/IB : Using` list
 * (src/transport/net_ib.cc prints `[%d]%s:%d/%s` for each device d of ncclIbDevs, in the order NCCL found them) or
 * in its per-device lines of 2.3
 * (`NET/IB: [%d] %s:%d/%s`). That order is not the names' (`mlx5_1` may be device 0), and it is the one NCCL's own
 * channel lines number (`via NET/IB/0` is device `[0]`). Hosts, pids and addresses are this test's own.
 */
const names = (text: string) => analyzeNcclLog(text).data.devices.map((d) => `${d.name}:${d.port}`);

describe("devices in NCCL's index order", () => {
  test("a Using list whose order is not the names'", () => {
    const log =
      "gpu-a:11:11 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [1]mlx5_3:1/IB [2]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>";
    expect(names(log)).toEqual(["mlx5_1:1", "mlx5_3:1", "mlx5_0:1"]);
  });

  test("NCCL 2.3's one line per device, printed in index order", () => {
    const log = [
      "gpu-a:11:11 [0] NCCL INFO NET/IB: [0] mlx5_3:1/IB",
      "gpu-a:11:11 [0] NCCL INFO NET/IB: [1] mlx5_2:1/IB",
      "gpu-a:11:11 [0] NCCL INFO NET/IB: [2] mlx5_1:1/IB",
    ].join("\n");
    expect(names(log)).toEqual(["mlx5_3:1", "mlx5_2:1", "mlx5_1:1"]);
  });

  test("a merged dual-port NIC (NCCL ≥ 2.20) keeps its group's place, its ports in their own order", () => {
    const log =
      "gpu-a:11:11 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_3:1/IB, [1] mlx5_3:2/IB} [1]mlx5_2:1/IB [2]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>";
    expect(names(log)).toEqual(["mlx5_3:1", "mlx5_3:2", "mlx5_2:1", "mlx5_0:1"]);
  });

  test("lines from several processes, the later ones first in the log, give one order", () => {
    const log = [
      "gpu-b:21:21 [0] NCCL INFO NET/IB: [1] mlx5_0:1/RoCE",
      "gpu-a:11:11 [0] NCCL INFO NET/IB: [0] mlx5_4:1/RoCE",
      "gpu-b:21:21 [0] NCCL INFO NET/IB: [0] mlx5_4:1/RoCE",
      "gpu-a:11:11 [0] NCCL INFO NET/IB: [1] mlx5_0:1/RoCE",
    ].join("\n");
    expect(names(log)).toEqual(["mlx5_4:1", "mlx5_0:1"]);
  });
});
