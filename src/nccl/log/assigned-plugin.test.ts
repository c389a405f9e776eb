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
// HyperPod guide committed to a public repository (index-file 66280673503).
//
// The plugin's load line prints `ncclNet->name` (`INFO(NCCL_INIT | NCCL_NET, "NET/Plugin: Loaded net plugin %s (v12)",
// ncclNet_v12->name)`, src/plugin/net/net_v12.cc in https://github.com/NVIDIA/nccl), the same field `Using network %s`
// prints (src/init.cc), so with no stronger line it names the network; unless the plugin's init failed (`Failed to
// initialize NET plugin %s`, src/plugin/net.cc), or the name is a loader's: nccl-rdma-sharp-plugins exports
// `"NCCL RDMA Plugin v8"` and replaces its table at init with IBext's or UCX's (src/p2p_plugin.c in
// https://github.com/Mellanox/nccl-rdma-sharp-plugins).
describe("a plugin NCCL loaded, no `Using network` line", () => {
  const text = [
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v10)",
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)",
    "[default0]:hp-pod-0:91:122 [0] NCCL INFO NET/OFI Tuner init: comm with 8 ranks and 2 nodes.",
  ].join("\n");

  test("the tuner's line states the rank count; the load line names the network, and says it decided", () => {
    const d = analyzeNcclLog(text).data;
    expect(d).toMatchObject({ ranks: 8, network: "Libfabric" });
    expect(d.evidence.network).toBe("loaded_plugin");
  });

  test("a plugin whose init failed names nothing; a stronger line decides over the load line", () => {
    const failed = `${text}\nhp-pod-0:91:122 [0] NCCL INFO Failed to initialize NET plugin Libfabric`;
    expect(analyzeNcclLog(failed).data.network).toBeNull();
    // The plugin's own WARN of its failed init, then NCCL's `Failed to initialize any NET plugin` (src/plugin/net.cc).
    const own = `${text}\nhp-pod-0:91:122 [0] nccl_net_ofi_init:79 NCCL WARN NET/OFI aws-ofi-nccl initialization failed`;
    expect(analyzeNcclLog(own).data.network).toBeNull();
    const none = `${text}\nhp-pod-0:91:122 [0] plugin/net.cc:306 NCCL WARN Failed to initialize any NET plugin`;
    expect(analyzeNcclLog(none).data.network).toBeNull();
    const used = `${text}\nhp-pod-0:91:122 [0] NCCL INFO Using network Socket`;
    expect(analyzeNcclLog(used).data.network).toBe("Socket");
  });

  test("a loader that names itself a plugin names no network (it is used under another name)", () => {
    const hpcx = [
      "gpu-b07:4410:4410 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)",
      "gpu-b07:4410:4410 [0] NCCL INFO Initialized NET plugin NCCL RDMA Plugin v8",
    ].join("\n");
    expect(analyzeNcclLog(hpcx).data.network).toBeNull();
  });

  // NCCL tries the next network when a plugin's init fails (src/plugin/net.cc), so the load line alone names nothing:
  // a paste cut after it would name a plugin the run never used (shape seen in a course's notes committed to a public
  // repository: `Loaded net plugin SPCX (v12)`, `Failed to initialize NET plugin SPCX`, then Socket).
  test("the load line alone names nothing; NCCL's `Initialized NET plugin` line completes it", () => {
    const load = "lab-3:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin SPCX (v12)";
    expect(analyzeNcclLog(load).data.network).toBeNull();
    expect(analyzeNcclLog(`${load}\nlab-3:1:1 [0] NCCL INFO Initialized NET plugin SPCX`).data.network).toBe("SPCX");
  });
});
