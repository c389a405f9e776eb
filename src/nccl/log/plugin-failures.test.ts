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
