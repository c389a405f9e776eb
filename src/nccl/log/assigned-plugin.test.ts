/**
 * Recent NCCL names the network plugin each communicator is given: `Assigned NET plugin IB to comm`
 * (src/plugin/net.cc in https://github.com/NVIDIA/nccl: `INFO(NCCL_INIT|NCCL_NET, "Assigned NET plugin %s to comm",
 * ncclNet->name)`), the name `Using network` prints. A paste that kept only these lines still says the network
 * (shape seen in https://github.com/modelscope/ms-swift/issues/6107).
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const line = (dev: number, msg: string) => `gpu-a17:30${dev}1:30${dev}9 [${dev}] NCCL INFO ${msg}`;

describe("the network plugin assigned to a communicator", () => {
  test("names the network when no `Using network` line was kept", () => {
    const text = [0, 1, 2, 3].map((d) => line(d, "Assigned NET plugin IB to comm")).join("\n");
    expect(analyzeNcclLog(text).data.network).toBe("IB");
    const socket = [0, 1].map((d) => line(d, "Assigned NET plugin Socket to comm")).join("\n");
    expect(analyzeNcclLog(socket).data.network).toBe("Socket");
  });

  test("agrees with `Using network` when both are printed, and a cut line names nothing", () => {
    const both = [line(0, "Using network IB"), line(0, "Assigned NET plugin IB to comm")].join("\n");
    expect(analyzeNcclLog(both).data.network).toBe("IB");
    expect(analyzeNcclLog(line(0, "Assigned NET plugin IB")).data.network).toBeNull();
  });
});

// aws-ofi-nccl's tuner `Tuner init: comm with %ld ranks and %ld nodes.` (src/tuner/nccl_ofi_tuner.c,
// https://github.com/aws/aws-ofi-nccl): the communicator's size as NCCL handed it to the plugin. Shape seen in a
// HyperPod guide committed to a public repository (index-file 66280673503). The plugin's load line
// (`NET/Plugin: Loaded net plugin Libfabric (v10)`) names no network: the name it prints is not always the one
// `Using network` prints (HPC-X's plugin loads as `NCCL RDMA Plugin v6` and is used as `IBext`).
describe("a plugin NCCL loaded, no `Using network` line", () => {
  const text = [
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v10)",
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)",
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/OFI Tuner init: comm with 8 ranks and 2 nodes.",
  ].join("\n");

  test("the tuner's line states the rank count; the load line names no network", () => {
    expect(analyzeNcclLog(text).data).toMatchObject({ ranks: 8, network: null });
  });
});
