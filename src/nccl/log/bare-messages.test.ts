/**
 * An NCCL INFO log pasted with only each record's message (no `host:pid:tid [dev] NCCL INFO`): the messages whose
 * openings NCCL's own formats print (bare-messages.ts cites them, v2.24.3-1) are read as those records.
 */
import { describe, expect, test } from "vitest";
import { detectKind } from "../../analyze/detect.js";
import { analyzeText } from "../../analyze/index.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { analyzeNcclLog } from "./analyzer.js";

const STRIPPED = [
  "NCCL_IB_HCA set by environment to =mlx5_0,mlx5_1",
  "Bootstrap: Using bond0:10.60.2.7<0>",
  "NCCL version 2.24.3+cuda12.6",
  "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
  "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB bond0:10.60.2.7<0>",
  "Using network IB",
  "comm 0x55aa01 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
  "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
  "ncclCommInitRank comm 0x55aa01 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x77 - Init COMPLETE",
];

describe("an NCCL log stripped to its messages", () => {
  test("is recognised as an NCCL log, and its messages give the facts their records would", () => {
    const text = `${STRIPPED.join("\n")}\n`;
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(text).data;
    expect(d).toMatchObject({ network: "IB", linkLayer: "RoCE", ranks: 2, nNodes: 1, ncclVersions: ["2.24.3"] });
    expect(d.devices.map((x) => x.name)).toEqual(["mlx5_0", "mlx5_1"]);
    expect(d.connections.p2p).toBe(1);
    expect(d.env.NCCL_IB_HCA).toBe("=mlx5_0,mlx5_1");
  });

  test("a text with a few such lines among more of its own is not an NCCL log", () => {
    const notes = [
      "Cluster notes for the March run.",
      "Using network IB was expected on every node.",
      "NET/IB : Using [0]mlx5_0:1/IB is what rank 0 printed.",
      "comm 0x1 rank 0 nRanks 2 nNodes 1 was the only communicator.",
      "The job was restarted twice; the second attempt ran to completion.",
      "Nothing else changed between the attempts.",
      "Next: rerun with NCCL_DEBUG=INFO on all nodes.",
    ].join("\n");
    expect(detectKind(notes, ANALYZERS).kind).toBe("unknown");
  });
});

// Two connection lines cut down to their ranks and transport, quoted in a question's prose (shape seen at
// https://github.com/NVIDIA/nccl/issues/897); own ranks and bus ids.
describe("connection lines cut to `N[bus] -> M[bus] … via …` amid prose", () => {
  const text = [
    "Two nodes, 8 GPUs each. Only one side seems to use GPUDirect, two lines from the log:",
    "9[1b000] -> 2[ad000] [send] via NET/IB/0/GDRDMA",
    "9[1b000] -> 2[ad000] [receive] via NET/IB/1",
    "Why would only the second machine use it?",
  ].join("\n");
  test("are an NCCL log whose network connections are partly GPUDirect", () => {
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(text).data).toMatchObject({ network: "IB", verdict: "rdma_partial_gdr" });
  });
  test("one such line in prose is not a log", () => {
    expect(
      detectKind("see 9[1b000] -> 2[ad000] via NET/IB/0 below\n9[1b000] -> 2[ad000] via NET/IB/0\n", ANALYZERS).kind,
    ).toBe("unknown");
  });
});

// src/plugin/net.cc `Assigned NET plugin %s to comm` kept without its prefix (shape seen in annotated notes committed to
// a public repository, index-file 65871279792): the network the communicator was given.
test("a bare `Assigned NET plugin IB to comm` names the network", () => {
  const d = analyzeNcclLog(["Initialized NET plugin IB", "Assigned NET plugin IB to comm"].join("\n")).data;
  expect(d.network).toBe("IB");
});

/**
 * NCCL's messages quoted as a block of their own amid a page's prose (a note's code block): read as an NCCL log, the
 * weakest reading of one (bare-messages.ts cites each message's format in NCCL's source). Shapes seen in notes
 * committed to public repositories (index-files 56973539776 and 66180676102, and
 * https://github.com/NumericalEarth/Breeze.jl/blob/HEAD/examples/NCCL_PERLMUTTER.md); the words around them, the
 * hosts and the devices here are our own.
 */
describe("a block of NCCL's messages quoted amid prose", () => {
  const entry = (text: string) => analyzeText("notes.md", text);

  test("a fenced block: the plugin that failed, the one that took over, and its connection", () => {
    const text = [
      "### The plugin did not load",
      "",
      "**What NCCL_DEBUG=INFO showed:**",
      "```",
      "NET/Plugin: libnccl-net.so: /lib64/libc.so.6: version `GLIBC_2.38' not found",
      "NET/IB : No device found.",
      "Failed to initialize NET plugin IB",
      "Initialized NET plugin Socket",
      "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0",
      "```",
      "",
      "The image's glibc is older than the host's; NCCL fell back to TCP.",
    ].join("\n");
    const e = entry(text);
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ network: "Socket", verdict: "socket" });
  });

  test("one message indented as a code block under `NCCL logged:`", () => {
    const text = [
      "The allreduce ran at half the line rate. NCCL logged:",
      "",
      "    NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_2'",
      "",
      "We want to find where the refusal happens.",
    ].join("\n");
    const e = entry(text);
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ network: "IB", verdict: "unknown" });
  });

  test("a plugin's own lines and a connection line elided before `via`", () => {
    const text = [
      "vs. the good case:",
      "```",
      "NET/Plugin: Loaded net plugin AWS Libfabric (v6)",
      "NET/OFI Using aws-ofi-nccl 1.9.1 ... Selected Provider is cxi",
      "Using network AWS Libfabric",
      "NET/AWS Libfabric : GPU Direct RDMA Enabled for HCA 'cxi0'",
      "... via NET/AWS Libfabric/0/GDRDMA/Shared",
      "```",
    ].join("\n");
    const e = entry(text);
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ network: "AWS Libfabric", verdict: "rdma_gdr" });
  });

  // Shape seen in a cluster's notes committed to a public repository (index-file 58506228257): two lines a fence sets
  // apart, the provider aws-ofi-nccl chose and the network NCCL took.
  test("two messages in a block of their own: the provider and the network", () => {
    const text = [
      "Check that it took. NCCL should log:",
      "",
      "```",
      "NET/OFI Selected Provider is cxi (found 4 nics)",
      "Using network AWS Libfabric",
      "```",
      "",
      "`found 4 nics` is what a four-NIC node reports.",
    ].join("\n");
    const e = entry(text);
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ network: "AWS Libfabric", verdict: "unknown", ncclVersions: [] });
    // One such line in a sentence's place is not a quote of a log.
    expect(
      entry(["We expected it to say:", "", "Using network AWS Libfabric", "", "It did not."].join("\n")).kind,
    ).toBe("unknown");
  });

  // Shape seen in Chinese notes committed to a public repository (index-file 70849613260): a runbook's list of the
  // lines that prove IB, each cut to what matters — the device list, `Init COMPLETE` lines cut to their ranks, and
  // the connections cut to their transport.
  test("a runbook's lines cut to what matters: devices, ranks, connections with GPUDirect", () => {
    const text = [
      "### The network NCCL chose",
      "```text",
      "NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB ... [3]mlx5_ib3:1/IB",
      "NCCL INFO Using network IB",
      "```",
      "### Every rank initialised",
      "```text",
      "rank 0 nranks 8 ... Init COMPLETE",
      "...",
      "rank 7 nranks 8 ... Init COMPLETE",
      "```",
      "### Connections across nodes",
      "```text",
      "via NET/IB/0/GDRDMA",
      "via NET/IB/1/GDRDMA",
      "```",
    ].join("\n");
    const e = entry(text);
    expect(e.kind).toBe("nccl_log");
    expect(e.data).toMatchObject({ network: "IB", verdict: "rdma_gdr", ranks: 8, linkLayer: "IB" });
  });

  test("the same words leading sentences of a paragraph are not a quote", () => {
    const text = [
      "Notes from the March run.",
      "",
      "The image was the one from February.",
      "Initialized NET plugin IB on every node, as we expected from the image.",
      "Using network IB was printed by rank 0 only.",
      "Connected all rings, use ring PXN 0 GDR 1 appeared twice, which we did not expect.",
      "Nothing else changed between attempts.",
      "The second attempt ran to completion.",
      "Next: rerun with NCCL_DEBUG=INFO on all nodes.",
    ].join("\n");
    expect(entry(text).kind).toBe("unknown");
  });
});

// A collector's view with every record's prefix gone, quoted as a block in a write-up (shape seen in a Kubernetes DRA
// write-up committed to a public repository, index-file 58177385188; devices our own): `DMA-BUF is available on GPU
// device %d` (src/init.cc) among the NET and connection lines.
test("a quoted block with NCCL's DMA-BUF line among its messages is an NCCL log", () => {
  const e = analyzeText(
    "writeup.md",
    [
      "**Key NCCL debug output:**",
      "```",
      "NET/IB : Using [0]mlx5_3:1/RoCE [RO]; OOB eth0",
      "DMA-BUF is available on GPU device 0",
      "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IBext_v8/0/GDRDMA",
      "Channel 01/0 : 0[0] -> 1[0] [send] via NET/IBext_v8/0/GDRDMA",
      "```",
    ].join("\n"),
  );
  expect(e.kind).toBe("nccl_log");
  expect(e.data).toMatchObject({ verdict: "rdma_gdr", linkLayer: "RoCE" });
});
