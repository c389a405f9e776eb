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
