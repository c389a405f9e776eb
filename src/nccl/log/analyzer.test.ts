import { describe, expect, test } from "vitest";
import { fixtureText } from "../../../test/support/fixtures.js";
import { captureIo } from "../../../test/support/io.js";
import { seedInventory } from "../../../test/support/nccl-inventory.js";
import { main } from "../../cli/main.js";
import { analyzeNcclLog, createNcclLogStream, ncclLogAnalyzer } from "./analyzer.js";

const log = (name: string) => fixtureText("nccl-logs", name);
const codes = (fs: { code: string }[]) => fs.map((f) => f.code);

describe("healthy RoCE runs across 2 nodes", () => {
  test("NCCL 2.18 wording: RDMA with GPUDirect on every network connection", () => {
    const r = analyzeNcclLog(log("roce-2node-gdr-2.18.txt"));
    expect(r.data).toMatchObject({
      ncclVersions: ["2.18.3"],
      ranks: 4,
      nNodes: 2,
      network: "IB",
      connections: { net: 8, netGdr: 8, p2p: 4, shm: 0, socket: 0 },
      verdict: "rdma_gdr",
      oobInterfaces: ["eth0"],
      env: { NCCL_IB_HCA: "=mlx5_1,mlx5_2" },
    });
    expect(r.data.devices).toEqual([
      { name: "mlx5_1", port: 1, linkLayer: "RoCE" },
      { name: "mlx5_2", port: 1, linkLayer: "RoCE" },
    ]);
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(r.findings.find((f) => f.code === "NCCL_LOG_VERDICT")?.message).toMatch(
      /^Verdict rdma_gdr: RDMA with GPUDirect on every network connection \(NCCL 2\.18\.3; 4 ranks; 2 nodes; network IB; devices mlx5_1:1 mlx5_2:1; 8 network connections \(8 GPUDirect\)/,
    );
    expect(r.problems).toEqual([]);
  });

  test("NCCL 2.23 behind mpirun --tag-output, P2P/CUMEM and PXN: same verdict, nNodes from the comm line", () => {
    const r = analyzeNcclLog(log("roce-2node-gdr-2.23-mpi.txt"));
    expect(r.data).toMatchObject({
      ncclVersions: ["2.23.4"],
      ranks: 4,
      nNodes: 2,
      verdict: "rdma_gdr",
      initComplete: 4,
    });
    expect(r.data.connections).toMatchObject({ net: 8, netGdr: 8, p2p: 4 });
    expect(r.data.processes).toBe(4);
  });

  test("NCCL 2.7 (busId device ids, space before ; OOB)", () => {
    const r = analyzeNcclLog(log("ib-2node-gdr-2.7.txt"));
    expect(r.data).toMatchObject({ ncclVersions: ["2.7.8"], ranks: 4, verdict: "rdma_gdr", network: "IB" });
    expect(r.data.devices.map((d) => `${d.name}:${d.port}/${d.linkLayer}`)).toEqual(["mlx5_0:1/IB", "mlx5_1:1/IB"]);
    expect(r.data.oobInterfaces).toEqual(["ib0"]);
  });

  test("NCCL 2.20 merged dual-port devices are listed port by port", () => {
    const r = analyzeNcclLog(log("ib-merged-2.20.txt"));
    expect(r.data.devices.map((d) => `${d.name}:${d.port}`)).toEqual(["mlx5_0:1", "mlx5_0:2", "mlx5_2:1"]);
    expect(r.data.verdict).toBe("rdma_gdr");
  });
});

describe("failures and their causes", () => {
  test("socket fallback after 'No device found' → error with the cause and fix", () => {
    const r = analyzeNcclLog(log("socket-fallback-no-device.txt"));
    expect(r.data.verdict).toBe("socket");
    expect(r.data.connections.socket).toBe(8);
    expect(r.data.network).toBe("Socket");
    const f = r.findings.find((x) => x.code === "NCCL_LOG_SOCKET");
    expect(f?.severity).toBe("error");
    expect(f?.message).toMatch(/2 of 2 processes chose network Socket, after "NET\/IB : No device found\."/);
    const cause = r.data.warnings.find((w) => w.code === "NCCL_WARN_NO_IB_DEVICE");
    expect(cause?.count).toBe(2);
    expect(cause?.fix).toMatch(/RDMA resource/);
  });

  test("GPUDirect missing on some channels → partial verdict, k of n, and NCCL's own distance line", () => {
    const r = analyzeNcclLog(log("gdr-partial-2.18.txt"));
    expect(r.data.verdict).toBe("rdma_partial_gdr");
    const f = r.findings.find((x) => x.code === "NCCL_LOG_GDR_MISSING");
    expect(f?.message).toMatch(/^2 of 8 network connections run without GPUDirect RDMA/);
    expect(f?.message).toMatch(/distance 6 > 4/);
    expect(r.data.connections.shm).toBe(1);
  });

  test("status 12 (retry exceeded) with a timestamped 2.27 WARN → error naming the cause; PyTorch's error line too", () => {
    const r = analyzeNcclLog(log("status12-2.27.txt"));
    expect(r.data.verdict).toBe("rdma_gdr");
    const f = r.findings.find((x) => x.code === "NCCL_WARN_IB_RETRY_EXCEEDED");
    expect(f?.severity).toBe("error");
    expect(f?.subject).toBe("gpu-node-1");
    expect(f?.message).toMatch(/transport retry counter exceeded/);
    expect(f?.fix).toMatch(/PFC\/ECN/);
    // PyTorch's "unhandled system error" repeats the same failure one layer up: not a second fault.
    expect(codes(r.findings)).not.toContain("NCCL_WARN_SYSTEM_ERROR");
    expect(r.data.followOnWarnings).toBeGreaterThan(0);
  });

  test("ibv_modify_qp EINVAL with NCCL_IB_GID_INDEX forced → init failed, cause names the forced index", () => {
    const r = analyzeNcclLog(log("init-failed-gid-2.19.txt"));
    expect(r.data.verdict).toBe("init_failed");
    expect(r.data.env.NCCL_IB_GID_INDEX).toBe("0");
    const f = r.findings.find((x) => x.code === "NCCL_WARN_GID_INDEX_INVALID");
    expect(f?.message).toMatch(/forced to 0/);
    expect(f?.fix).toMatch(/nccl-env/);
    expect(codes(r.findings)).toContain("NCCL_LOG_INIT_FAILED");
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_GID_INDEX_INVALID"]);
  });

  test("mixed NCCL versions across srun ranks → warning with the count per version", () => {
    const r = analyzeNcclLog(log("mixed-versions-srun.txt"));
    expect(r.data.ncclVersions).toEqual(["2.18.3", "2.21.5"]);
    const f = r.findings.find((x) => x.code === "NCCL_LOG_MIXED_VERSIONS");
    expect(f?.message).toMatch(/2\.18\.3 on 1, 2\.21\.5 on 1/);
    expect(codes(r.findings)).toContain("NCCL_WARN_PEER_GONE");
  });
});

describe("line prefixes before the host", () => {
  const lines = (prefix: (i: number) => string) =>
    ["gx-1:100:100 [0]", "gx-2:200:200 [0]"]
      .map(
        (who, i) =>
          `${prefix(i)}${who} NCCL INFO NCCL version 2.30.4+cuda13.0\n` +
          `${prefix(i)}${who} NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.${i + 1}<0>\n`,
      )
      .join("");

  test('a plain `2026-11-20 03:05:41 ` date and time (NCCL_DEBUG_TIMESTAMP_FORMAT="%F %T ") → 2 hosts, not 1', () => {
    const r = analyzeNcclLog(lines((i) => `2026-11-20 03:05:4${i} `));
    expect(r.data).toMatchObject({ hosts: 2, processes: 2, ncclVersions: ["2.30.4"] });
  });

  test("with fractional seconds too", () => {
    const r = analyzeNcclLog(lines((i) => `2026-11-20 03:05:41.00061${i} `));
    expect(r.data).toMatchObject({ hosts: 2, processes: 2 });
  });
});

describe("NCCL 2.30's RAS client socket", () => {
  const line = (file: string) =>
    `[2026-11-02 09:41:12] ub-7:50211:50211 [0] ${file} NCCL WARN Call to bind failed: Address already in use\n`;

  test("a second NCCL process on the node finds localhost:28028 taken → info NCCL_WARN_RAS_SOCKET, the run still passes", () => {
    const r = analyzeNcclLog(line("ras/client_support.cc:181"));
    expect(r.data.warnings.map((w) => [w.code, w.severity])).toEqual([["NCCL_WARN_RAS_SOCKET", "info"]]);
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
  });

  // src/misc/socket.cc ncclSocketListen: `SYSCHECK(bind(…), "bind")`, ncclSystemError; any port is asked for unless
  // one is fixed (the bootstrap root's), so the taken port ends the communicator's setup.
  test("the same words raised elsewhere (the bootstrap socket) are a taken listening port that ends init", () => {
    const r = analyzeNcclLog(line("misc/socket.cc:473"));
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_SOCKET_BIND"]);
    expect(r.data.verdict).toBe("init_failed");
  });
});

describe("NCCL's device list against the node", () => {
  test("the management NIC in the list is a warning when the node is known", () => {
    const r = analyzeNcclLog(log("mgmt-nic-2.21.txt"), { inventory: seedInventory() });
    const f = r.findings.find((x) => x.code === "NCCL_LOG_MGMT_NIC");
    expect(f?.subject).toBe("mlx5_0");
    expect(f?.fix).toMatch(/NCCL_IB_HCA==mlx5_1,mlx5_2/);
  });

  test("without the node, 9 NICs for 8 GPUs per node is a hint", () => {
    const r = analyzeNcclLog(log("mgmt-nic-2.21.txt"));
    expect(codes(r.findings)).toContain("NCCL_LOG_EXTRA_NIC");
  });

  test("a GID index the job forced that this node does not call for is named", () => {
    const r = analyzeNcclLog(log("init-failed-gid-2.19.txt"), { inventory: seedInventory() });
    const f = r.findings.find((x) => x.code === "NCCL_LOG_ENV_DIFFERS");
    expect(f?.message).toBe("The job set NCCL_IB_GID_INDEX=0, but this node calls for NCCL_IB_GID_INDEX=3.");
  });

  test("a data HCA NCCL did not list is named", () => {
    const r = analyzeNcclLog(log("roce-2node-gdr-2.18.txt"), { inventory: seedInventory() });
    const f = r.findings.find((x) => x.code === "NCCL_LOG_NIC_UNUSED");
    expect(f?.subject).toBe("mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
  });
});

describe("bad input", () => {
  test("empty input → a problem, verdict unknown", () => {
    const r = analyzeNcclLog("");
    expect(r.data.verdict).toBe("unknown");
    expect(r.problems.map((p) => p.code)).toEqual(["nccl_log.empty"]);
  });

  test("a log cut mid-line keeps everything before the cut and says so", () => {
    const text = log("roce-2node-gdr-2.18.txt");
    const cut = text.slice(0, text.indexOf("Init COMPLETE") - 20);
    const r = analyzeNcclLog(cut);
    expect(r.data.connections.net).toBe(8);
    expect(r.problems.map((p) => p.code)).toContain("nccl_log.cut_line");
  });

  test("binary garbage → a problem, no NCCL lines", () => {
    const garbage = String.fromCharCode(...Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256));
    const r = analyzeNcclLog(garbage);
    expect(r.problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(["nccl_log.binary", "nccl_log.no_nccl_lines"]),
    );
  });

  test("streaming in odd-sized chunks or line by line gives the same result as the whole text", () => {
    const text = log("status12-2.27.txt") + log("roce-2node-gdr-2.23-mpi.txt");
    const whole = analyzeNcclLog(text);
    const chunked = createNcclLogStream();
    for (let i = 0; i < text.length; i += 37) chunked.write(text.slice(i, i + 37));
    const lines = createNcclLogStream();
    for (const l of text.split("\n")) lines.push(l);
    expect(chunked.end().data).toEqual(whole.data);
    expect(lines.end().data).toEqual(whole.data);
  });

  test("detect: NCCL INFO lines are recognised; nccl-tests output is left to its own analyser", () => {
    expect(ncclLogAnalyzer.detect(log("roce-2node-gdr-2.18.txt"))).toBeGreaterThan(0.8);
    expect(ncclLogAnalyzer.detect("hello\nworld\n")).toBe(0);
  });
});

describe("NCCL_SOCKET_IFNAME is judged in the network the job ran on", () => {
  // Written for these tests: a 2-rank RoCE run whose bootstrap and OOB interface is `iface` at `ip`.
  const runOn = (iface: string, ip: string) =>
    [
      `gpu-node-1:2101:2101 [0] NCCL INFO Bootstrap : Using ${iface}:${ip}<0>`,
      "NCCL version 2.21.5+cuda12.4",
      `gpu-node-1:2101:2188 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ${iface}`,
      `gpu-node-1:2101:2188 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_2:1/RoCE [RO]; OOB ${iface}:${ip}<0>`,
      "gpu-node-1:2101:2188 [0] NCCL INFO Using network IB",
      "",
    ].join("\n");
  const bondRouted = () =>
    seedInventory((inv) => {
      inv.roles.defaultRouteInterface = "bond0";
    });
  const socketDiffers = (text: string) =>
    analyzeNcclLog(text, { inventory: bondRouted() }).findings.filter(
      (f) => f.code === "NCCL_LOG_ENV_DIFFERS" && f.subject === "NCCL_SOCKET_IFNAME",
    );

  test("a pod on the pod network using its eth0, on a node routed via bond0, is fine (no 'differs')", () => {
    expect(socketDiffers(runOn("eth0", "172.16.3.7"))).toEqual([]);
  });

  test("a hostNetwork job using the node's ens1f0 where the default route is bond0 is told to use =bond0", () => {
    const [f] = socketDiffers(runOn("ens1f0", "10.0.60.3"));
    expect(f?.message).toBe(
      "The job set NCCL_SOCKET_IFNAME=ens1f0, but this node calls for NCCL_SOCKET_IFNAME==bond0.",
    );
  });

  test("analyze --example bond-management (default route bond0) on a pod-network log using eth0 says nothing differs", async () => {
    const io = captureIo(runOn("eth0", "172.16.3.7"));
    await main(["analyze", "--example", "bond-management", "-o", "json", "-"], io);
    const entries: { findings: { code: string; subject: string }[] }[] = [JSON.parse(io.out)].flat();
    const codes = entries.flatMap((e) => e.findings.map((f) => `${f.code}:${f.subject}`));
    expect(codes).toContain("NCCL_LOG_VERDICT:log");
    expect(codes).not.toContain("NCCL_LOG_ENV_DIFFERS:NCCL_SOCKET_IFNAME");
  });
});
