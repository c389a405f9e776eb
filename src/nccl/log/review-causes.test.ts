/**
 * NCCL log causes and verdicts, each checked against NCCL's source or the kernel. Logs are written here in NCCL's
 * line shapes (src/misc/ibvwrap.cc, src/transport/net.cc, src/transport/net_ib/*.cc), with our own hosts and numbers.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const HEAD = [
  "gpu-a:4101:4101 [0] NCCL INFO Bootstrap : Using eth0:10.20.0.11<0>",
  "NCCL version 2.21.5+cuda12.4",
  "gpu-a:4101:4180 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_2:1/RoCE [RO]; OOB eth0:10.20.0.11<0>",
  "gpu-a:4101:4180 [0] NCCL INFO Using network IB",
  "gpu-b:5101:5180 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_2:1/RoCE [RO]; OOB eth0:10.20.0.12<0>",
  "gpu-b:5101:5180 [0] NCCL INFO Using network IB",
];
const CHANNELS = (sendGdr: boolean) => [
  "gpu-a:4101:4180 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA",
  "gpu-a:4101:4180 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA",
  `gpu-a:4101:4180 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0${sendGdr ? "/GDRDMA" : ""}`,
  `gpu-a:4101:4180 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0${sendGdr ? "/GDRDMA" : ""}`,
  "gpu-b:5101:5180 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA",
  "gpu-b:5101:5180 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA",
  `gpu-b:5101:5180 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0${sendGdr ? "/GDRDMA" : ""}`,
  `gpu-b:5101:5180 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [send] via NET/IB/0${sendGdr ? "/GDRDMA" : ""}`,
];
const INIT = [
  "gpu-a:4101:4101 [0] NCCL INFO comm 0x55d0c0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9a1b - Init COMPLETE",
  "gpu-b:5101:5101 [0] NCCL INFO comm 0x56e1d0 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9a1b - Init COMPLETE",
];
const run = (...lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`);
const warn = (r: ReturnType<typeof run>, id: string) => r.findings.find((f) => f.code === `NCCL_WARN_${id}`);

describe("ibv_modify_qp ETIMEDOUT on RoCE: address resolution, not only rails", () => {
  // On RoCE the INIT→RTR transition makes the kernel resolve the peer GID's IP to a MAC: ib_modify_qp_with_udata →
  // ib_resolve_eth_dmac → rdma_addr_find_l2_eth_by_grh → rdma_resolve_ip(…, 1000 ms) → -ETIMEDOUT when ARP/ND gets
  // no answer (https://github.com/torvalds/linux/blob/master/drivers/infiniband/core/addr.c, core/verbs.c). NCCL's
  // own hint names cross-rail wiring (src/misc/ibvwrap.cc printIbModifyQpHint, ETIMEDOUT); both are the same failure.
  test("a 110 at RTR within one subnet: the cause names ARP/ND, routing from the source IP, arp_ignore/arp_announce/rp_filter and a down peer port", () => {
    const r = run(
      ...HEAD,
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:376 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_1:1, curr state INIT, next state RTR, local GID index 3, local GID ::ffff:10.30.1.11, remote GID ::ffff:10.30.1.12",
    );
    const f = warn(r, "QP_TIMEOUT")!;
    expect(f.message).toMatch(/resolve the peer's IP to a MAC/);
    expect(f.message).toMatch(/arp_ignore\/arp_announce\/rp_filter/);
    expect(f.message).toMatch(/peer's port is down/);
    expect(f.fix).toMatch(/ip route get <peer IP> from <local IP>/);
    expect(f.fix).toMatch(/arping -I/);
    // Rails are one possible cause, not the cause.
    expect(f.fix).toMatch(/If peers on other rails are unreachable by design, NCCL_CROSS_NIC=0/);
  });
});

describe("completion status 4 (LOC_PROT) on GDRDMA connections: ACS, as NCCL's hint says", () => {
  // src/transport/net_ib/common.h printIbWcStatusHint: IBV_WC_LOC_PROT_ERR → "In many cases this error occurs when
  // ACS is enabled which would break GPU Direct RDMA protocol." (https://github.com/NVIDIA/nccl).
  test("status=4 after /GDRDMA channels → the cause is PCIe ACS, registration having worked", () => {
    const r = run(
      ...HEAD,
      ...CHANNELS(true),
      ...INIT,
      "gpu-a:4101:4190 [0] transport/net_ib/p2p.cc:740 NCCL WARN NET/IB: Got completion from peer 10.30.1.12<40110> with status=IBV_WC_LOC_PROT_ERR(4) opcode=IBV_WC_RECV reqSize=0 vendor_err=81 req_type=Recv localGid ::ffff:10.30.1.11 remoteGids ::ffff:10.30.1.12 hca mlx5_1",
    );
    const f = warn(r, "IB_LOCAL_PROTECTION")!;
    expect(f.message).toMatch(/registration worked/);
    expect(f.message).toMatch(/ACS/);
    expect(f.fix).toMatch(/PCIE_ACS_REDIRECT/);
    expect(f.fix).toMatch(/enable ATS instead/);
  });
});

describe("verdict: an error before any Init COMPLETE is init_failed, whatever the channel lines promised", () => {
  // init.cc prints "Init COMPLETE" at the end of ncclCommInitRank; the channel lines (transport/net.cc) print what
  // NCCL set up to use, not traffic. ibvwrap.cc: "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory".
  test("/GDRDMA channels, then ibv_reg_mr ENOMEM, no Init COMPLETE → init_failed, not rdma_gdr", () => {
    const r = run(
      ...HEAD,
      ...CHANNELS(true),
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:214 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
      "gpu-a:4101:4180 [0] NCCL INFO transport/net_ib.cc:1155 -> 2",
    );
    expect(r.data.verdict).toBe("init_failed");
    expect(r.findings.map((f) => f.code)).toContain("NCCL_LOG_INIT_FAILED");
  });

  test("the same error after both ranks' Init COMPLETE keeps the transport verdict (the run had started)", () => {
    const r = run(
      ...HEAD,
      ...INIT,
      ...CHANNELS(true),
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:214 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    );
    expect(r.data.verdict).toBe("rdma_gdr");
  });
});

describe("GPUDirect missing only on sends: NCCL's GDR read default, not a missing peermem", () => {
  // src/graph/paths.cc ncclTopoCheckGdr: for reads (sends) NCCL_NET_GDR_READ defaults to -2, and "Disable GDR Reads
  // pre-Ampere when we have other PCI flows" (cudaCompCap < 80 and no NVLink between the GPUs), with no log line.
  // src/transport/net.cc prints "[send] via NET/IB/0" and "[receive] via NET/IB/0/GDRDMA".
  test("every receive /GDRDMA, sends without → info NCCL_LOG_GDR_READ_OFF, no 'load nvidia_peermem' warning", () => {
    const r = run(...HEAD, ...CHANNELS(false), ...INIT);
    expect(r.data.verdict).toBe("rdma_partial_gdr");
    expect(r.data.connections).toMatchObject({ net: 8, netGdr: 4, netRecv: 4, netRecvGdr: 4 });
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain("NCCL_LOG_GDR_READ_OFF");
    expect(codes).not.toContain("NCCL_LOG_GDR_MISSING");
    expect(r.findings.find((f) => f.code === "NCCL_LOG_GDR_READ_OFF")?.fix).toMatch(/NCCL_NET_GDR_READ=1/);
  });

  test("receives without /GDRDMA too → NCCL_LOG_GDR_MISSING with the peermem fix", () => {
    const noGdr = CHANNELS(false).map((l) => l.replace("/GDRDMA", ""));
    const r = run(...HEAD, ...noGdr, ...INIT);
    expect(r.data.verdict).toBe("rdma_no_gdr");
    expect(r.findings.find((f) => f.code === "NCCL_LOG_GDR_MISSING")?.fix).toMatch(/nvidia_peermem/);
  });
});

describe("registration and QP creation failures are told apart by errno", () => {
  // ibvwrap.cc: "Call to <name> failed with error %s" (strerror(errno)); ibv_reg_mr(3), ibv_create_qp(3):
  // ENOMEM = not enough resources, EOPNOTSUPP = not supported.
  test("ibv_reg_mr EOPNOTSUPP on a GPU buffer → no GPUDirect path, not memlock", () => {
    const r = run(
      ...HEAD,
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:214 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Operation not supported",
    );
    expect(warn(r, "REG_MR_NOT_SUPPORTED")?.message).toMatch(/no GPUDirect path/);
    expect(warn(r, "MEMLOCK")).toBeUndefined();
  });

  test("ibv_create_qp ENOMEM at scale → QP/ICM exhaustion first; memlock only with IPC_LOCK absent and a low limit", () => {
    const r = run(
      ...HEAD,
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:255 NCCL WARN Call to ibv_create_qp failed with error Cannot allocate memory",
    );
    const f = warn(r, "QP_RESOURCES")!;
    expect(f.message).toMatch(/ICM/);
    expect(f.message).toMatch(/only where the container lacks IPC_LOCK/);
    expect(f.fix).toMatch(/NCCL_IB_QPS_PER_CONNECTION/);
    expect(warn(r, "MEMLOCK")).toBeUndefined();
  });

  test("ibv_reg_mr ENOMEM → memlock, conditioned on IPC_LOCK and the limit; another verbs errno is not memlock", () => {
    const r = run(
      ...HEAD,
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:214 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    );
    expect(warn(r, "MEMLOCK")?.fix).toMatch(/ulimit -l.*IPC_LOCK/);
    const other = run(
      ...HEAD,
      "gpu-a:4101:4180 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Device or resource busy",
    );
    expect(warn(other, "MEMLOCK")).toBeUndefined();
    expect(warn(other, "VERBS_CALL_FAILED")).toBeDefined();
  });
});
