import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";
import { causeOf } from "./causes.js";

const CAPTURES = "fixtures/captures/nccl_log";
const analyze = (name: string) => analyzeText(name, readFileSync(`${CAPTURES}/${name}`, "utf8"));
const data = (name: string) => analyze(name).data as { verdict: string; network: string | null };

// Shapes: src/plugin/net.cc `Error: network %s not found.` (https://github.com/NVIDIA/nccl/issues/958,
// https://github.com/AI-Hypercomputer/gpu-recipes/issues/5); misc/socket.cc `socketPollConnect: Connect to %s returned
// %d(%s) errno %d(%s)` (https://github.com/sgl-project/sglang/issues/3820); aws-ofi-nccl `NET/OFI … failed` WARNs
// (https://github.com/aws/aws-ofi-nccl/issues/24, https://github.com/aws/aws-ofi-nccl/issues/889).
describe("network plugin and connect failures", () => {
  test("NCCL_NET naming a network no module offers → NET_PLUGIN, an init failure with no network", () => {
    expect(causeOf("Error: network gIB not found.").id).toBe("NET_PLUGIN");
    expect(causeOf("Error: network  not found.").id).toBe("NET_PLUGIN");
    expect(data("gib-network-not-found-plugin-glibc-2.21.txt")).toMatchObject({
      verdict: "init_failed",
      network: null,
    });
    expect(data("net-ib-forced-no-device-network-not-found-2.17.txt").verdict).toBe("init_failed");
  });

  test("a connect that returned an errno (no route to host) is a socket connect failure", () => {
    expect(
      causeOf(
        "socketPollConnect: Connect to 10.6.0.14<53117> returned 113(No route to host) errno 115(Operation now in progress)",
      ).id,
    ).toBe("SOCKET_CONNECT");
    expect(data("sglang-tp-prefix-poll-connect-no-route-2.21.txt").verdict).toBe("init_failed");
  });

  test("the OFI plugin's own failure before any Init COMPLETE fails the init, whatever channel lines came first", () => {
    expect(causeOf("NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument").id).toBe("NET_PLUGIN_ERROR");
    expect(causeOf("NET/OFI Creating new endpoint for domain 0x7f30 failed: Invalid argument").id).toBe(
      "NET_PLUGIN_ERROR",
    );
    // Informational NET/OFI lines are no failure.
    expect(causeOf("NET/OFI Selected Provider is efa (found 4 nics)").id).toBe("OTHER");
    expect(data("mpirun-tags-ring-aws-libfabric-open-av.txt")).toMatchObject({
      verdict: "init_failed",
      network: "AWS Libfabric",
    });
    expect(data("cloudwatch-table-ofi-endpoint-fail-2.21.txt")).toMatchObject({
      verdict: "init_failed",
      network: "Libfabric",
    });
    // A plugin that found no provider, after which NCCL ran over sockets: still a socket run.
    expect(data("ofi-no-provider-no-libibverbs-socket-2.4.txt").verdict).toBe("socket");
  });
});

// net_ib.cc skips a device it cannot open (`WARN("NET/IB : Unable to open device %s"); continue;`) and lists the
// others (https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc; shape in
// https://github.com/zai-org/ImageReward/issues/65).
describe("an RDMA device NCCL could not open", () => {
  test("is a warning about that device, not an init failure: the other devices are used", () => {
    expect(causeOf("NET/IB : Unable to open device mlx5_41").id).toBe("IB_DEVICE_NOT_OPENED");
    expect(causeOf("Call to ibv_open_device failed").id).toBe("IB_DEVICE_NOT_OPENED");
    expect(causeOf("Call to ibv_modify_qp failed with error No such device").id).toBe("VERBS_CALL_FAILED");
    const e = analyze("unable-to-open-some-hcas-roce-rest-used.txt");
    expect((e.data as { verdict: string }).verdict).toBe("unknown");
    expect(e.findings.find((f) => f.code === "NCCL_WARN_IB_DEVICE_NOT_OPENED")?.severity).toBe("warning");
  });

  test("with an unhandled system error after it the init still failed", () => {
    expect(data("indirect-ib-net-ib-warn-only.txt").verdict).toBe("init_failed");
  });
});

// ncclGetErrorString results as the caller prints them: "internal error - please report this issue to the NCCL
// developers", "invalid usage" (https://github.com/NVIDIA/nccl/blob/master/src/misc/utils.cc; shapes in
// https://github.com/Azure/msccl/issues/26 and https://github.com/NVIDIA/nccl/issues/1837).
describe("an error result handed back to the program", () => {
  test("internal error / invalid usage before any Init COMPLETE → init_failed, named as a consequence", () => {
    expect(causeOf("ncclInternalError: Internal check failed.").id).toBe("NCCL_ERROR_RESULT");
    expect(
      causeOf("Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL developers / '")
        .id,
    ).toBe("NCCL_ERROR_RESULT");
    expect(causeOf("Cuda failure 'invalid argument'").id).toBe("CUDA");
    expect(data("role-label-prefix-ifname-missing-internal-error-2.27.txt").verdict).toBe("init_failed");
    expect(data("msccl-parser-attribute-missing-init-chain.txt").verdict).toBe("init_failed");
  });
});
