import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const facts = (lines: string[]) => {
  const d = analyzeNcclLog(`${lines.join("\n")}\n`).data;
  return { network: d.network, by: d.evidence.network, linkLayer: d.linkLayer };
};

// What NCCL prints: src/init.cc, src/transport/net_ib.cc, src/transport/net_socket.cc, src/bootstrap.cc in
// https://github.com/NVIDIA/nccl ; shapes seen in https://github.com/NVIDIA/nccl/issues/1129 (NET/IB list, ibv_* WARN),
// https://github.com/NVIDIA/nccl/issues/179 (one device per line), https://github.com/NVIDIA/nccl/issues/1232 (bootstrap).
describe("the network from every piece of evidence, strongest first", () => {
  test("`Using network` decides over weaker readings that disagree", () => {
    expect(
      facts([
        "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>",
        "a:1:1 [0] NCCL INFO Using network Socket",
      ]),
    ).toEqual({ network: "Socket", by: "using_network", linkLayer: "RoCE" });
  });

  test("connections decide over a device list", () => {
    expect(
      facts([
        "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>",
        "a:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0",
      ]),
    ).toEqual({ network: "Socket", by: "connections", linkLayer: "IB" });
  });

  test("a device list, or one device per line, says IB and its link layer", () => {
    expect(
      facts(["a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:1.2.3.4<0>"]),
    ).toEqual({
      network: "IB",
      by: "rdma_device_list",
      linkLayer: "RoCE",
    });
    expect(
      facts(["a:1:1 [0] NCCL INFO NET/IB: [0] mlx5_1:1/IB", "a:1:1 [0] NCCL INFO NET/IB: [1] mlx5_2:1/RoCE"]),
    ).toEqual({ network: "IB", by: "rdma_device_list", linkLayer: "mixed" });
  });

  test("sockets after no IB device or with IB turned off", () => {
    expect(
      facts([
        "a:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
        "a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
      ]),
    ).toEqual({ network: "Socket", by: "socket_fallback", linkLayer: null });
  });

  test("IB transport WARNs alone say IB", () => {
    expect(
      facts(["a:1:1 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_modify_qp failed with error No such device"]),
    ).toEqual({
      network: "IB",
      by: "ib_warnings",
      linkLayer: null,
    });
    expect(facts(["a:1:9 [2] transport/net_ib.cc:95 NCCL WARN NET/IB : Got async event : port error"])).toEqual({
      network: "IB",
      by: "ib_warnings",
      linkLayer: null,
    });
  });

  test("a failed bootstrap connection before any IB line says sockets; a lone connect failure says nothing", () => {
    const connect =
      "a:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.3.0.8<45211> failed : No route to host";
    expect(facts([connect, "a:1:2 [0] NCCL INFO bootstrap.cc:77 -> 2"])).toEqual({
      network: "Socket",
      by: "bootstrap_failure",
      linkLayer: null,
    });
    expect(facts([connect])).toEqual({ network: null, by: null, linkLayer: null });
  });

  test("nothing said: unknown, and no evidence named", () => {
    expect(facts(["a:1:1 [0] NCCL INFO NET/Plugin: Using internal network plugin."])).toEqual({
      network: null,
      by: null,
      linkLayer: null,
    });
  });
});
