/**
 * Facts a log states outside the lines that usually carry them: RCCL's version banner inside an INFO record, NCCL 2.4's
 * NIC distance line naming the network, and the HCA at the end of a failed completion's WARN.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";
import { reportLog } from "./report.js";
import { LineScanner } from "./scan.js";
import { LogState, mergeInto } from "./state.js";

const read = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data;

// RCCL: src/init.cc in https://github.com/ROCm/rccl — VERSION_STRING `"RCCL version : " MAJOR.MINOR.PATCH NCCL_SUFFIX`,
// printed `"%s-%s\n%s\n"` with the git hash, then the HIP and ROCm versions on lines of their own (the main branch after
// rocm-6.2.2); rocm-6.2.2 printed `"RCCL version " … "+hip" HIP_MAJOR.HIP_MINOR` then a space and the hash.
describe("RCCL's version banner", () => {
  test("`RCCL version : 2.22.3-HEAD:…` in an INFO record, HIP and ROCm lines after it → NCCL 2.22.3", () => {
    const d = read([
      "mi-node:610:610 [0] NCCL INFO RCCL version : 2.22.3-HEAD:0c0ffee",
      "HIP version  : 6.4.10001-abcdef0",
      "ROCm version : 6.4.0.0-1-1234567",
      "mi-node:610:610 [0] NCCL INFO Using network Socket",
    ]);
    expect(d.ncclVersions).toEqual(["2.22.3"]);
  });

  test("the older `RCCL version 2.20.5+hip6.2 HEAD` reads the same, in a record or on its own", () => {
    expect(read(["mi-node:7:7 [1] NCCL INFO RCCL version 2.20.5+hip6.2 0c0ffee"]).ncclVersions).toEqual(["2.20.5"]);
    expect(read(["RCCL version 2.20.5+hip6.2 0c0ffee"]).ncclVersions).toEqual(["2.20.5"]);
  });
});

// NCCL 2.4: `sprintf(line, "CUDA Dev %d[%d], %s NIC distance : ", cudaDev, nvmlDev, ncclNetName())`, then one
// distance per NIC (src/transport/net.cc at v2.4.8-1 in https://github.com/NVIDIA/nccl).
describe("NCCL 2.4's NIC distance line names the network in use", () => {
  test("`CUDA Dev 1[5], IB NIC distance :  PHB` on a log with no `Using network` line → IB, from nic_distance", () => {
    const d = read([
      "dgx-3:4410:4440 [1] NCCL INFO comm 0x7f00aa001d30 rank 1 nranks 4 cudaDev 1 nvmlDev 5",
      "dgx-3:4410:4440 [1] NCCL INFO CUDA Dev 1[5], IB NIC distance :  PHB PHB",
    ]);
    expect(d.network).toBe("IB");
    expect(d.evidence.network).toBe("nic_distance");
  });

  test("`Using network` still decides, and a socket run's line reads Socket", () => {
    const said = read([
      "dgx-3:1:2 [0] NCCL INFO Using network IB",
      "dgx-3:1:2 [0] NCCL INFO CUDA Dev 0[0], Socket NIC distance :  SYS",
    ]);
    expect(said.evidence.network).toBe("using_network");
    expect(read(["dgx-3:1:2 [0] NCCL INFO CUDA Dev 0[0], Socket NIC distance :  SYS"]).network).toBe("Socket");
  });

  test("the fact survives a log scanned in parts and merged (worker threads)", () => {
    const [a, b] = [new LogState(), new LogState()];
    new LineScanner(a).scanChunk("dgx-3:1:2 [0] NCCL INFO comm 0x7f00 rank 0 nranks 2 cudaDev 0 nvmlDev 0\n");
    new LineScanner(b).scanChunk("dgx-3:1:2 [0] NCCL INFO CUDA Dev 0[0], IB NIC distance :  SOC\n");
    expect(reportLog(mergeInto(a, b)).data.network).toBe("IB");
  });
});

// NCCL 2.22+: `WARN("NET/IB: Got completion from peer %s with status=%d … (%s)%s%s%s%s hca %s", …, hcaName)`
// (src/transport/net_ib.cc at v2.22.3-1; src/transport/net_ib/p2p.cc at v2.29.7-1, in https://github.com/NVIDIA/nccl).
describe("the HCA named at the end of a failed completion's WARN", () => {
  const warn =
    "[2026-04-02 10:00:01] trn-7:512:900 [2] transport/net_ib.cc:2360 NCCL WARN NET/IB: Got completion from peer " +
    "10.30.0.8<51022> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.30.0.7 " +
    "remoteGids::ffff:10.30.0.8 hca mlx5_3";

  test("a lone WARN ending `hca mlx5_3` → device mlx5_3 (RoCE, from the WARN's GIDs), decided by completion_warn", () => {
    const d = read([warn]);
    expect(d.devices).toEqual([{ name: "mlx5_3", port: 0, linkLayer: "RoCE" }]);
    expect(d.evidence.devices).toBe("completion_warn");
  });

  test("NCCL's own device list wins over the WARN's HCA", () => {
    const d = read([
      "trn-7:512:512 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.30.0.7<0>",
      warn,
    ]);
    expect(d.devices.map((x) => x.name)).toEqual(["mlx5_0", "mlx5_1"]);
    expect(d.evidence.devices).toBe("using_lines");
  });

  test("the WARN of NCCL 2.21 and before (no `hca`) names no device", () => {
    const old =
      "trn-7:1:2 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.30.0.8<1> with status=12 opcode=0 len=0 vendor err 129 (Recv)";
    expect(read([old]).devices).toEqual([]);
  });
});
