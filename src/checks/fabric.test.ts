import { describe, expect, test } from "vitest";
import { runChecks } from "./index.js";
import { compactNames } from "./select.js";
import { only, problemsOf, verdicts } from "./testing/expect.js";
import { gid, hcaOf, ipv4Gid, portOf, seedGids, seedInventory, setGids } from "./testing/seed-inventory.js";

describe("data ports", () => {
  test("mlx5_3 port DOWN / Disabled with eth3 down: PORT_DOWN names eth3 and `ip link set eth3 up`", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_3"), { state: "DOWN", physState: "Disabled" });
    inv.netdevs.find((n) => n.name === "eth3")!.operstate = "down";
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([{ code: "PORT_DOWN", subject: "mlx5_3", severity: "error" }]);
    const [f] = findings.filter((x) => x.code === "PORT_DOWN");
    expect(f?.message).toMatch(/mlx5_3 port 1 is 1: DOWN \/ 3: Disabled \(netdev eth3 down\)/);
    expect(f?.fix).toMatch(/ip link set eth3 up/);
  });

  test("a down RoCE port that also lost its GIDs is still named by its PCI netdev, and only PORT_DOWN is said", () => {
    const inv = seedInventory();
    const port = portOf(inv, "mlx5_3");
    Object.assign(port, { state: "DOWN", physState: "Disabled" });
    setGids(port, []);
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([{ code: "PORT_DOWN", subject: "mlx5_3", severity: "error" }]);
    expect(only(findings, "PORT_DOWN")[0]!.fix).toMatch(/eth3/);
  });

  test("an IB port stuck in INIT points at the subnet manager", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_2"), { state: "INIT", physState: "LinkUp", linkLayer: "InfiniBand" });
    const [f] = only(runChecks(inv), "PORT_DOWN");
    expect(f?.message).toMatch(/2: INIT.*no subnet manager/);
    expect(f?.fix).toMatch(/opensm/);
  });

  test("ACTIVE but LinkErrorRecovery is PORT_NOT_LINKUP", () => {
    const inv = seedInventory();
    portOf(inv, "mlx5_7").physState = "LinkErrorRecovery";
    const [f] = only(runChecks(inv), "PORT_NOT_LINKUP");
    expect(f).toMatchObject({ subject: "mlx5_7", severity: "error" });
    expect(f?.message).toMatch(/6: LinkErrorRecovery, not 5: LinkUp/);
  });

  test("the management NIC's port is not a data port", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_0"), { rateGbps: 25 });
    expect(problemsOf(runChecks(inv))).toEqual([]);
  });

  test("mlx5_6 at 100 Gb/s (2X HDR) among 200 Gb/s ports is RATE_MISMATCH in the seed's words", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_6"), { rateGbps: 100, rateText: "100 Gb/sec (2X HDR)" });
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([{ code: "RATE_MISMATCH", subject: "mlx5_6", severity: "error" }]);
    expect(only(findings, "RATE_MISMATCH")[0]!.message).toMatch(
      /mlx5_6 port 1 runs at 100 Gb\/s \("100 Gb\/sec \(2X HDR\)"\) while 7 data port\(s\) run at 200 Gb\/s/,
    );
  });

  test("on an even split the slower half is reported", () => {
    const inv = seedInventory();
    for (const n of [1, 2, 3, 4]) portOf(inv, `mlx5_${n}`).rateGbps = 100;
    expect(only(runChecks(inv), "RATE_MISMATCH").map((f) => f.subject)).toEqual([
      "mlx5_1",
      "mlx5_2",
      "mlx5_3",
      "mlx5_4",
    ]);
  });

  test("a dual-port HCA names its port as mlx5_1/2", () => {
    const inv = seedInventory();
    const hca = hcaOf(inv, "mlx5_1");
    hca.ports.push({ ...structuredClone(hca.ports[0]!), port: 2, state: "DOWN", physState: "Polling" });
    expect(only(runChecks(inv), "PORT_DOWN").map((f) => f.subject)).toEqual(["mlx5_1/2"]);
  });
});

describe("GID tables", () => {
  test("mlx5_5 lost its IPv4 address: NO_ROCEV2_GID says link-local only and how to check", () => {
    const inv = seedInventory();
    setGids(portOf(inv, "mlx5_5"), seedGids(5).slice(0, 2));
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([{ code: "NO_ROCEV2_GID", subject: "mlx5_5", severity: "error" }]);
    const [f] = only(findings, "NO_ROCEV2_GID");
    expect(f?.message).toMatch(/only link-local fe80:: GIDs, so eth5 has no IP address/);
    expect(f?.fix).toMatch(/ip addr show eth5/);
    expect(f?.fix).toMatch(/kube-rdma gids mlx5_5/);
  });

  test("addresses only as RoCE v1 are NO_ROCEV2_GID too", () => {
    const inv = seedInventory();
    setGids(
      portOf(inv, "mlx5_2"),
      seedGids(2).filter((g) => g.version === "v1"),
    );
    expect(only(runChecks(inv), "NO_ROCEV2_GID")[0]?.message).toMatch(/only as RoCE v1/);
  });

  test("a global IPv6 RoCE v2 GID is enough", () => {
    const inv = seedInventory();
    const v6 = "fd00:0025:0011:0128:0000:0000:0000:0082";
    setGids(portOf(inv, "mlx5_5"), [...seedGids(5).slice(0, 2), gid(2, v6, "v1", "eth5"), gid(3, v6, "v2", "eth5")]);
    expect(only(runChecks(inv), "NO_ROCEV2_GID")).toEqual([]);
  });

  test("an empty table on an active data port is GID_TABLE_EMPTY", () => {
    const inv = seedInventory();
    setGids(portOf(inv, "mlx5_8"), []);
    const [f, ...rest] = problemsOf(runChecks(inv));
    expect(rest).toEqual([]);
    expect(f).toEqual({ code: "GID_TABLE_EMPTY", subject: "mlx5_8", severity: "error" });
  });

  test("a management NIC with only link-local GIDs is noted as info", () => {
    const inv = seedInventory();
    setGids(portOf(inv, "mlx5_0"), seedGids(0).slice(0, 2));
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([]);
    expect(verdicts(only(findings, "GID_LINK_LOCAL_ONLY"))).toEqual([
      { code: "GID_LINK_LOCAL_ONLY", subject: "mlx5_0", severity: "info" },
    ]);
  });

  test("mlx5_5 with an extra IPv6 address has its IPv4 v2 GID at 5: GID_INDEX_DIFFERS names mlx5_5 and index 3", () => {
    const inv = seedInventory();
    const v6 = "fd00:0025:0011:0128:0000:0000:0000:0082";
    const v4 = ipv4Gid("25.11.128.130");
    setGids(portOf(inv, "mlx5_5"), [
      ...seedGids(5).slice(0, 2),
      gid(2, v6, "v1", "eth5"),
      gid(3, v6, "v2", "eth5"),
      gid(4, v4, "v1", "eth5"),
      gid(5, v4, "v2", "eth5"),
    ]);
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([{ code: "GID_INDEX_DIFFERS", subject: "mlx5_5", severity: "warning" }]);
    const [f] = only(findings, "GID_INDEX_DIFFERS");
    expect(f?.message).toMatch(
      /mlx5_5's RoCE v2 IPv4 GID sits at index 5, but at index 3 on mlx5_1\.\.mlx5_4, mlx5_6\.\.mlx5_8/,
    );
    expect(f?.message).toMatch(/index 3 on mlx5_5 holds a RoCE v2 global IPv6 GID/);
    expect(f?.fix).toMatch(/NCCL ≥ 2.21/);
    expect(f?.fix).toMatch(/NCCL_IB_ADDR_FAMILY=AF_INET/);
    expect(f?.fix).toMatch(/ip addr show eth5/);
  });

  test("every data HCA with holes at 2/3 and IPv4 at 4/5: GID_TABLE_SPARSE warns that index 3 is empty", () => {
    const inv = seedInventory();
    for (let i = 1; i <= 8; i++) {
      const [ll1, ll2, v1, v2] = seedGids(i);
      setGids(portOf(inv, `mlx5_${i}`), [ll1!, ll2!, { ...v1!, index: 4 }, { ...v2!, index: 5 }]);
    }
    const findings = runChecks(inv);
    const sparse = only(findings, "GID_TABLE_SPARSE");
    expect(sparse.map((f) => f.subject)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `mlx5_${i}`));
    expect(sparse[0]!.severity).toBe("warning");
    expect(sparse[0]!.message).toMatch(
      /empty slot\(s\) 2, 3 before its RoCE v2 IPv4 GID at index 5.*NCCL_IB_GID_INDEX=3 points at an empty slot/,
    );
    expect(sparse[0]!.fix).toMatch(/NCCL_IB_GID_INDEX=5/);
    expect(only(findings, "GID_INDEX_DIFFERS")).toEqual([]);
  });

  test("InfiniBand data ports are not judged on RoCE GIDs", () => {
    const inv = seedInventory();
    for (let i = 1; i <= 8; i++) {
      const port = portOf(inv, `mlx5_${i}`);
      port.linkLayer = "InfiniBand";
      const guid = `fe80:0000:0000:0000:0c42:a103:00aa:00${String(i).padStart(2, "0")}`;
      setGids(port, [{ index: 0, gid: guid, kind: "ib", ipv4: null, type: "IB/RoCE v1", version: "v1", netdev: null }]);
    }
    expect(problemsOf(runChecks(inv))).toEqual([]);
  });
});

describe("firmware, counters, bonds", () => {
  test("mlx5_8 on older firmware than its seven MT4123 peers is FW_MISMATCH with mlxfwmanager", () => {
    const inv = seedInventory();
    hcaOf(inv, "mlx5_8").fwVer = "20.31.1014";
    const [f, ...rest] = only(runChecks(inv), "FW_MISMATCH");
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ subject: "mlx5_8", severity: "warning" });
    expect(f?.message).toMatch(/runs firmware 20.31.1014 while mlx5_1..mlx5_7 \(MT4123\) run 20.35.1012/);
    expect(f?.fix).toMatch(/mlxfwmanager -u -d 0000:cc:00.0/);
  });

  test("different HCA models may run different firmware", () => {
    const inv = seedInventory();
    Object.assign(hcaOf(inv, "mlx5_8"), { fwVer: "28.39.1002", hcaType: "MT4129" });
    expect(only(runChecks(inv), "FW_MISMATCH")).toEqual([]);
  });

  test("mlx5_4 with symbol_error and link_downed: PORT_ERROR_COUNTERS warning with the values", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_4").counters, { symbol_error: 1832, link_downed: 3 });
    const [f] = only(runChecks(inv), "PORT_ERROR_COUNTERS");
    expect(f).toMatchObject({ subject: "mlx5_4", severity: "warning" });
    expect(f?.message).toMatch(/symbol_error=1832, link_downed=3/);
    expect(f?.fix).toMatch(/\/sys\/class\/infiniband\/mlx5_4\/ports\/1\/counters\/symbol_error/);
  });

  test("RoCE retransmission counters are ROCE_COUNTERS with the lossless-fabric checks", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_2").hwCounters, {
      out_of_sequence: 17,
      local_ack_timeout_err: 2,
      out_of_buffer: 9,
    });
    const [f] = only(runChecks(inv), "ROCE_COUNTERS");
    expect(f).toMatchObject({ subject: "mlx5_2", severity: "warning" });
    expect(f?.message).toMatch(/out_of_sequence=17, local_ack_timeout_err=2:/);
    expect(f?.message).not.toMatch(/out_of_buffer/);
    expect(f?.fix).toMatch(/mlnx_qos -i eth2/);
  });

  test("a RoCE LAG management device is BOND_PRESENT info naming the bond and slaves; still no problem", () => {
    const inv = seedInventory();
    const hca = hcaOf(inv, "mlx5_0");
    Object.assign(hca, { name: "mlx5_bond_0", isBond: true, netdevs: ["bond0"] });
    inv.netdevs.push({
      name: "bond0",
      operstate: "up",
      mtu: 1500,
      address: null,
      pciAddress: null,
      hca: "mlx5_bond_0",
      isDefaultRoute: true,
      bondSlaves: ["eth0", "eth1"],
      ipv4Subnets: ["10.0.60.0/24"],
    });
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([]);
    const [f] = only(findings, "BOND_PRESENT");
    expect(f?.message).toMatch(/mlx5_bond_0 is a RoCE LAG device on bond0 \(slaves eth0, eth1\).*management NIC/);
  });
});

describe("name ranges in messages", () => {
  test("consecutive names collapse, others stay", () => {
    expect(compactNames(["mlx5_10", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_6", "mlx5_7"])).toBe(
      "mlx5_2..mlx5_4, mlx5_6, mlx5_7, mlx5_10",
    );
    expect(compactNames(["mlx5_bond_0", "eth1"])).toBe("eth1, mlx5_bond_0");
  });
});

describe("RoCE active MTU across the data ports (it follows the netdev's MTU)", () => {
  const withMtus = (mtus: Record<string, number>, all = 9000) => {
    const inv = seedInventory();
    for (const n of inv.netdevs) n.mtu = mtus[n.name] ?? all;
    return runChecks(inv);
  };

  test("eth4 left at 1500 while the other rails run 9000 → MTU_MISMATCH on mlx5_4: active 1024 vs 4096, names eth4", () => {
    const findings = withMtus({ eth4: 1500 });
    expect(problemsOf(findings)).toEqual([{ code: "MTU_MISMATCH", subject: "mlx5_4", severity: "warning" }]);
    const [f] = only(findings, "MTU_MISMATCH");
    expect(f!.message).toBe(
      "mlx5_4 port 1 runs with an active MTU of 1024 (its netdev eth4 has MTU 1500), the other data ports 4096.",
    );
    expect(f!.fix).toMatch(/set the same MTU on eth4/);
  });

  test("eth6 set to 4096 (the IB MTU's number) gets active MTU 2048, not 4096: the RoCE headers need 96 bytes more", () => {
    const [f] = only(withMtus({ eth6: 4096 }), "MTU_MISMATCH");
    expect(f).toMatchObject({ subject: "mlx5_6" });
    expect(f!.message).toMatch(/active MTU of 2048 \(its netdev eth6 has MTU 4096\), the other data ports 4096/);
  });

  test("the example node's uniform 9000, a uniform 4200, and a management NIC at 1500 beside 9000 rails: nothing to say", () => {
    expect(only(runChecks(seedInventory()), "MTU_MISMATCH")).toEqual([]);
    expect(only(withMtus({}, 4200), "MTU_MISMATCH")).toEqual([]);
    expect(only(withMtus({ eth0: 1500 }), "MTU_MISMATCH")).toEqual([]);
  });
});

describe("port rates are compared within one link layer", () => {
  test("a 200 Gb/s Ethernet data port (a BlueField's) beside 400 Gb/s InfiniBand rails is not a slow rail; a 200 Gb/s IB rail among them is", () => {
    const inv = seedInventory();
    for (const h of inv.hcas) {
      for (const p of h.ports) {
        if (h.name === "mlx5_0") continue;
        p.linkLayer = "InfiniBand";
        p.rateGbps = 400;
      }
    }
    const bf3 = portOf(inv, "mlx5_8");
    Object.assign(bf3, { linkLayer: "Ethernet", rateGbps: 200 });
    portOf(inv, "mlx5_2").rateGbps = 200;
    const rate = only(runChecks(inv), "RATE_MISMATCH");
    expect(rate.map((f) => f.subject)).toEqual(["mlx5_2"]);
    expect(rate[0]!.message).toMatch(/runs at 200 Gb\/s .* while 6 data port\(s\) run at 400 Gb\/s/);
  });
});
