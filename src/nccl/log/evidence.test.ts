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

  // ncclNetInit tries the networks in order (external plugins, then IB, then Socket) and stops at the first one
  // enabled and assigned to the communicator (src/net.cc before 2.23, src/plugin/net.cc after, in
  // https://github.com/NVIDIA/nccl): the socket network's init, which prints `NET/Socket : Using …`, runs only when none
  // before it was. Before 2.7 the bootstrap printed its own interfaces as `NET/Socket : Using` too, before the network's
  // set-up (`NET/Plugin …`); from 2.7 it prints `Bootstrap : Using`. Shape seen in notes on an RCCL network plugin
  // committed to a public repository (index-file 61457301045): the plugin refused, then the socket network's list.
  test("a socket list the network's set-up printed is the socket network, chosen because nothing before it was", () => {
    expect(
      facts([
        "NCCL INFO NCCL_NET_PLUGIN set by environment to TB5",
        "NCCL INFO External network plugin /opt/plugins/librccl-net-TB5.so is unsupported",
        "NCCL INFO NET/Socket : Using [0]bond0:10.8.0.2<0>",
      ]),
    ).toEqual({ network: "Socket", by: "socket_fallback", linkLayer: null });
    expect(
      facts([
        "b:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.5<0>",
        "b:7:7 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
        "b:7:7 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0>",
      ]),
    ).toEqual({ network: "Socket", by: "socket_fallback", linkLayer: null });
    // NCCL 2.4: the bootstrap's list comes first; the network's set-up after it says nothing yet.
    expect(
      facts([
        "c:3:3 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.9.1<0>",
        "c:3:3 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
      ]),
    ).toEqual({ network: null, by: null, linkLayer: null });
    // Another process's set-up does not make this process's bootstrap list the network's.
    expect(
      facts([
        "d:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
        "d:2:2 [1] NCCL INFO NET/Socket : Using [0]ib0:192.168.9.2<0>",
      ]),
    ).toEqual({ network: null, by: null, linkLayer: null });
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

  // Shapes: https://github.com/NVIDIA/nccl/issues/1814 (`localGid ::ffff:… remoteGids::ffff:…` of a failed
  // completion), https://github.com/NVIDIA/nccl/issues/1129 (`local GID ::ffff:…` of a failed ibv_modify_qp).
  test("no device list: an IPv4-mapped GID in an IB WARN says RoCE; the device list decides when there is one", () => {
    const completion =
      "b:7:9 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.40.2.9<51122> with status=12 opcode=1 len=0 vendor err 129 (Send) localGid ::ffff:10.40.2.8 remoteGids::ffff:10.40.2.9";
    const d = analyzeNcclLog(`${completion}\n`).data;
    expect([d.network, d.linkLayer, d.evidence.linkLayer]).toEqual(["IB", "RoCE", "gid_in_warnings"]);
    const listed = analyzeNcclLog(
      `b:7:7 [3] NCCL INFO NET/IB : Using [0]mlx5_3:1/RoCE ; OOB eth0:10.40.2.8<0>\n${completion}\n`,
    );
    expect([listed.data.linkLayer, listed.data.evidence.linkLayer]).toEqual(["RoCE", "device_suffix"]);
    // An InfiniBand GID (subnet prefix + GUID) says nothing about RoCE.
    const ib = analyzeNcclLog(`${completion.replace(/::ffff:10\.40\.2\.(\d)/g, "fe80::a088:c203:30:9a0$1")}\n`).data;
    expect([ib.linkLayer, ib.evidence.linkLayer]).toEqual([null, null]);
  });

  test("nothing said: unknown, and no evidence named", () => {
    expect(facts(["a:1:1 [0] NCCL INFO NET/Plugin: Using internal network plugin."])).toEqual({
      network: null,
      by: null,
      linkLayer: null,
    });
  });
});

// The socket transport's own return chain (src/transport/net_socket.cc, `.cu` before NCCL 2.8) — seen in NCCL 2.3's
// `transport/net_socket.cu:118 -> 2` in https://github.com/horovod/horovod/issues/789 .
describe("the socket transport's return chain or WARN names the network", () => {
  test("a chain through net_socket with no RDMA device listed", () => {
    expect(
      facts([
        "k8:31:41 [0] NCCL INFO NET/Socket : 2 interfaces found",
        "k8:31:41 [0] include/socket.h:361 NCCL WARN Connect to 10.3.0.9<40001> failed : Connection refused",
        "k8:31:41 [0] NCCL INFO transport/net_socket.cu:118 -> 2",
      ]),
    ).toEqual({ network: "Socket", by: "socket_transport", linkLayer: null });
  });

  test("an RDMA device list is stronger", () => {
    expect(
      facts([
        "k8:31:41 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>",
        "k8:31:41 [0] NCCL INFO transport/net_socket.cc:480 -> 2",
      ]).network,
    ).toBe("IB");
  });
});
