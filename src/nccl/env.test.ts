import { describe, expect, test } from "vitest";
import {
  bondLike,
  exampleInventory,
  findHca,
  ipv4Gid,
  seedInventory,
  setGids,
} from "../../test/support/nccl-inventory.js";
import type { NodeInventory } from "../inventory/types.js";
import { expandGid } from "../parse/gid-text.js";
import { coveringCidr } from "../parse/ipv4.js";
import { deriveNcclEnv } from "./env.js";

const codes = (fs: { code: string; subject: string; severity: string }[]) =>
  fs.map((f) => `${f.severity} ${f.code} ${f.subject}`);

describe("nccl-env on the seed node", () => {
  const r = deriveNcclEnv(seedInventory(), { network: { kind: "host" } });

  test("names the eight data HCAs exactly, never the management NIC", () => {
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
    expect(r.dataHcas).toEqual(["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"]);
    expect(codes(r.findings)).toContain("info NCCL_HCA_SKIPPED mlx5_0");
  });

  test("on the pod network (the default) the note on mlx5_0 does not claim NCCL_SOCKET_IFNAME carries the bootstrap: it is not set there", () => {
    const pod = deriveNcclEnv(seedInventory());
    expect(pod.env.NCCL_SOCKET_IFNAME).toBeUndefined();
    const note = pod.findings.find((f) => f.code === "NCCL_HCA_SKIPPED" && f.subject === "mlx5_0")!;
    expect(note.message).not.toContain("uses it through NCCL_SOCKET_IFNAME");
    expect(note.message).toContain("the pod's own interface on the pod network");
  });

  // The default is NCCL's own behaviour plus what the node proves: no timeout, QP count or IB_DISABLE is assumed
  // (tuning is an opt-in profile, src/nccl/profiles.ts; NCCL's defaults:
  // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html).
  test("hostNetwork pods bootstrap over the default-route interface; GID index 3; no tuning assumed", () => {
    expect(r.env).toMatchObject({ NCCL_SOCKET_IFNAME: "=eth0", NCCL_IB_GID_INDEX: "3" });
    expect(Object.keys(r.env).sort()).toEqual(["NCCL_IB_GID_INDEX", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"]);
    expect(r.env).not.toHaveProperty("NCCL_NET_GDR_LEVEL");
    expect(r.env).not.toHaveProperty("NCCL_IB_TC");
  });

  test("every variable has a reason, and the GID reason says which NCCL is assumed", () => {
    // Every set variable has a reason; so does each one deliberately left at NCCL's default.
    const leftUnset = ["NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_TIMEOUT"];
    expect(Object.keys(r.reasons).sort()).toEqual([...Object.keys(r.env), ...leftUnset].sort());
    // On the pod network (the default) NCCL_SOCKET_IFNAME has a reason and no value: why it is left unset.
    const pod = deriveNcclEnv(seedInventory());
    expect(pod.env).not.toHaveProperty("NCCL_SOCKET_IFNAME");
    expect(Object.keys(pod.reasons).sort()).toEqual(
      [...Object.keys(pod.env), "NCCL_SOCKET_IFNAME", ...leftUnset].sort(),
    );
    expect(r.reasons.NCCL_IB_GID_INDEX).toMatch(/index 3 on all 8 data HCAs/);
    expect(r.reasons.NCCL_IB_GID_INDEX).toMatch(/version is unknown/);
    expect(r.reasons.NCCL_IB_HCA).toMatch(/a bare mlx5_1 would also match mlx5_10/);
    expect(r.findings.filter((f) => f.severity !== "info")).toEqual([]);
  });
});

describe("GID selection", () => {
  const moveMlx5_5 = (inv: NodeInventory) => {
    const port = findHca(inv, "mlx5_5").ports[0]!;
    port.gids.push(ipv4Gid(5, "25.11.128.130", "v2", "eth5"));
    port.gids = port.gids.filter((g) => g.index !== 3);
    port.roceV2Ipv4Index = 5;
  };
  const moved = () => seedInventory(moveMlx5_5);

  test("mlx5_5 with its RoCE v2 IPv4 GID at index 5 → address family and range, and the reason names mlx5_5", () => {
    const r = deriveNcclEnv(moved());
    expect(r.env).not.toHaveProperty("NCCL_IB_GID_INDEX");
    expect(r.env.NCCL_IB_ADDR_FAMILY).toBe("AF_INET");
    expect(r.env.NCCL_IB_ADDR_RANGE).toBe("25.11.128.0/24");
    expect(r.reasons.NCCL_IB_ADDR_FAMILY).toMatch(
      /mlx5_5 has its RoCE v2 IPv4 GID at index 5, the other data HCAs at 3/,
    );
    expect(r.reasons.NCCL_IB_ADDR_FAMILY).toMatch(/requires NCCL ≥ 2.21/);
    expect(codes(r.findings)).toContain("warning NCCL_GID_NOT_UNIFORM mlx5_5");
  });

  test("the range holds the data HCAs' subnets (from the routes), not just this node's addresses: it fits every node on the rails", () => {
    const r = deriveNcclEnv(moved());
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(
      /subnets \(25\.11\.128\.0\/27, 25\.11\.128\.32\/27, … 25\.11\.128\.224\/27/,
    );
    const flat = seedInventory((inv) => {
      moveMlx5_5(inv);
      for (const n of inv.netdevs) if (n.name !== "eth0") n.ipv4Subnets = ["25.11.0.0/16"];
    });
    expect(deriveNcclEnv(flat).env.NCCL_IB_ADDR_RANGE).toBe("25.11.0.0/16");
  });

  test("without routes for the data netdevs the range falls back to this node's addresses, and says to widen it", () => {
    const bare = seedInventory((inv) => {
      moveMlx5_5(inv);
      for (const n of inv.netdevs) n.ipv4Subnets = [];
    });
    const r = deriveNcclEnv(bare);
    expect(r.env.NCCL_IB_ADDR_RANGE).toBe("25.11.128.0/24");
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(/not in the routes.*widen it/);
  });

  test("the same node with NCCL 2.18 → no GID choice works: an error, no GID variable", () => {
    const r = deriveNcclEnv(moved(), { ncclVersion: "2.18" });
    expect(codes(r.findings)).toContain("error NCCL_GID_NO_CHOICE node");
    expect(Object.keys(r.env).filter((k) => /GID|ADDR/.test(k))).toEqual([]);
  });

  test("NCCL 2.21 on a uniform node selects the GID itself: no NCCL_IB_GID_INDEX", () => {
    const r = deriveNcclEnv(seedInventory(), { ncclVersion: "2.21.5" });
    expect(r.env).not.toHaveProperty("NCCL_IB_GID_INDEX");
    expect(codes(r.findings)).toContain("info NCCL_GID_AUTO node");
  });

  test("an older NCCL keeps the pinned index and names its own version", () => {
    const r = deriveNcclEnv(seedInventory(), { ncclVersion: "2.18.3" });
    expect(r.env.NCCL_IB_GID_INDEX).toBe("3");
    expect(r.reasons.NCCL_IB_GID_INDEX).toMatch(/NCCL 2\.18\.3 uses index 0/);
    expect(r.reasons.NCCL_IB_TIMEOUT).toMatch(/18 in NCCL 2\.18\.3/);
  });

  test("an InfiniBand node gets no GID variable", async () => {
    const r = deriveNcclEnv(await exampleInventory("ib-8x-hdr"));
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
    expect(Object.keys(r.env).filter((k) => /GID|ADDR/.test(k))).toEqual([]);
    expect(codes(r.findings)).toContain("info NCCL_GID_NOT_NEEDED node");
    // NCCL ≥ 2.22 on InfiniBand: GID index NCCL_IB_ROUTABLE_FLID_GID_INDEX (default 1) when that GID holds a
    // routable FLID, else 0 (src/transport/net_ib/connect.cc ncclIbGetGidIndex; the parameter since v2.22.3-1,
    // https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib/connect.cc).
    const note = r.findings.find((f) => f.code === "NCCL_GID_NOT_NEEDED")!;
    expect(note.message).toMatch(/index 1 when it holds a routable FLID/);
    expect(note.message).toMatch(/otherwise index 0/);
  });

  test("a data HCA that lost its IPv4 address is left out with an error", () => {
    const inv = seedInventory((i) => {
      const port = findHca(i, "mlx5_5").ports[0]!;
      setGids(
        port,
        port.gids.filter((g) => g.kind === "link_local"),
      );
    });
    const r = deriveNcclEnv(inv);
    expect(r.env.NCCL_IB_HCA).not.toMatch(/mlx5_5/);
    expect(r.env.NCCL_IB_GID_INDEX).toBe("3");
    expect(codes(r.findings)).toContain("error NCCL_NO_ROCEV2_IPV4_GID mlx5_5");
  });

  test("covering CIDR of addresses", () => {
    expect(coveringCidr(["10.0.0.1", "10.0.0.2"])).toBe("10.0.0.0/30");
    expect(coveringCidr(["10.1.2.3"])).toBe("10.1.2.3/32");
    expect(coveringCidr(["10.0.0.1", "192.168.0.1"])).toBe("0.0.0.0/0");
    expect(coveringCidr(["nonsense"])).toBeNull();
  });
});

describe("which HCAs and ports", () => {
  test("a port that is down is not named, and the warning says why", () => {
    const inv = seedInventory((i) => {
      findHca(i, "mlx5_3").ports[0]!.state = "DOWN";
      findHca(i, "mlx5_3").ports[0]!.physState = "Disabled";
    });
    const r = deriveNcclEnv(inv);
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
    const f = r.findings.find((x) => x.subject === "mlx5_3");
    expect(f?.message).toMatch(/port 1 is DOWN\/Disabled/);
  });

  test("a dual-port HCA has its ports named", async () => {
    const inv = await exampleInventory("ib-8x-hdr");
    inv.hcas = inv.hcas.slice(0, 2);
    for (const h of inv.hcas) h.ports.push({ ...structuredClone(h.ports[0]!), port: 2 });
    findHca(inv, "mlx5_1").ports[1]!.state = "DOWN";
    const r = deriveNcclEnv(inv);
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_0:1,mlx5_0:2,mlx5_1:1");
    expect(r.reasons.NCCL_IB_HCA).toMatch(/ports named/);
  });

  test("a management bond stays out; a bond that is the data path is named", async () => {
    const r = deriveNcclEnv(await exampleInventory("bond-management"), { network: { kind: "host" } });
    expect(r.env.NCCL_IB_HCA).not.toMatch(/bond/);
    expect(r.env.NCCL_SOCKET_IFNAME).toBe("=bond0");
    expect(r.findings.find((f) => f.subject === "mlx5_bond_0")?.message).toMatch(/bond that is not the data path/);

    const dataBond = seedInventory((i) => {
      i.hcas.push(bondLike(findHca(i, "mlx5_8"), "mlx5_bond_1", "bond1", "25.11.129.2"));
    });
    expect(deriveNcclEnv(dataBond).env.NCCL_IB_HCA).toMatch(/,mlx5_bond_1$/);
  });

  test("18 HCAs: the GPU-near ones are listed in natural order; the one with no GPU nearby is left out, said why", async () => {
    const r = deriveNcclEnv(await exampleInventory("h100-18hca"));
    expect(r.env.NCCL_IB_HCA).toMatch(/^=mlx5_1,mlx5_2,.*,mlx5_9,mlx5_10,.*mlx5_16$/);
    expect(r.findings.find((f) => f.code === "NCCL_HCA_SKIPPED" && f.subject === "mlx5_17")?.message).toMatch(
      /no GPU within a PCIe switch/,
    );
  });

  test("--hcas restricts to the allocated HCAs and warns on the management NIC or unknown names", () => {
    const r = deriveNcclEnv(seedInventory(), { hcas: ["mlx5_2", "mlx5_1", "mlx5_0", "mlx5_99"] });
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2");
    expect(codes(r.findings)).toEqual(
      expect.arrayContaining(["warning NCCL_HCA_UNKNOWN mlx5_99", "warning NCCL_HCA_SKIPPED mlx5_0"]),
    );
  });

  test("no data HCA at all → an error and no IB variables", () => {
    const inv = seedInventory((i) => {
      i.hcas = i.hcas.slice(0, 1);
    });
    const r = deriveNcclEnv(inv, { network: { kind: "host" } });
    expect(codes(r.findings)).toContain("error NCCL_NO_DATA_HCA node");
    expect(Object.keys(r.env)).toEqual(["NCCL_SOCKET_IFNAME"]);
  });
});

describe("GPUDirect level and traffic class", () => {
  // NCCL ≥ 2.12 (PXN) routes a far GPU's traffic over NVLink to a GPU near a NIC
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-pxn-disable): raising the GDR level is
  // a choice to measure, so it is opt-in.
  test("GPUs whose nearest data NIC is behind the host bridge: the distance is reported, the level is raised only when asked", () => {
    const inv = seedInventory((i) => {
      i.paths = i.paths.map((p) => (p.distance === "PIX" ? { ...p, distance: "PHB", nvsmi: "NODE" } : p));
    });
    const r = deriveNcclEnv(inv);
    expect(r.env).not.toHaveProperty("NCCL_NET_GDR_LEVEL");
    const possible = r.findings.find((f) => f.code === "NCCL_GDR_LEVEL_PHB_POSSIBLE");
    expect(possible?.message).toMatch(/GPU0, GPU1.*PXN/);
    const raised = deriveNcclEnv(inv, { raiseGdrLevel: true });
    expect(raised.env.NCCL_NET_GDR_LEVEL).toBe("PHB");
    expect(raised.reasons.NCCL_NET_GDR_LEVEL).toMatch(/GPU0, GPU1.*PXB/);
  });

  test("a GPU that only reaches NICs across sockets gets a warning, not a level", () => {
    const inv = seedInventory((i) => {
      i.paths = i.paths.map((p) => (p.gpu === 7 ? { ...p, distance: "SYS", nvsmi: "SYS" } : p));
    });
    const r = deriveNcclEnv(inv);
    expect(r.env).not.toHaveProperty("NCCL_NET_GDR_LEVEL");
    expect(codes(r.findings)).toContain("warning NCCL_GDR_FAR GPU7");
  });

  test("--traffic-class 106 → NCCL_IB_TC with its DSCP; 300 is refused", () => {
    const r = deriveNcclEnv(seedInventory(), { trafficClass: 106 });
    expect(r.env.NCCL_IB_TC).toBe("106");
    expect(r.reasons.NCCL_IB_TC).toMatch(/DSCP 26/);
    const bad = deriveNcclEnv(seedInventory(), { trafficClass: 300 });
    expect(bad.env).not.toHaveProperty("NCCL_IB_TC");
    expect(codes(bad.findings)).toContain("error NCCL_BAD_OPTION traffic-class");
  });

  test("a bad --nccl-version is an error finding, and the rest still derives as for an unknown version", () => {
    const r = deriveNcclEnv(seedInventory(), { ncclVersion: "two" });
    expect(codes(r.findings)).toContain("error NCCL_BAD_OPTION nccl-version");
    expect(r.env.NCCL_IB_GID_INDEX).toBe("3");
  });
});

describe("an IPv6-only RoCE fabric (no data port has an IPv4 address)", () => {
  /**
   * Every data port: link-local at 0/1, a global IPv6 address at 2 (v1) and 3 (v2), no IPv4. The address of data HCA
   * mlx5_n is `address(n)` in sysfs form, fd00:25:11:128::n unless told.
   */
  const ipv6Only = (address = (n: number) => `fd00:0025:0011:0128:0000:0000:0000:${String(n).padStart(4, "0")}`) =>
    seedInventory((inv) => {
      for (const h of inv.hcas.filter((x) => x.name !== "mlx5_0")) {
        const port = h.ports[0]!;
        const netdev = port.netdevs[0]!;
        const gid = address(Number(h.name.slice(5)));
        port.gids = [
          ...port.gids.filter((g) => g.kind === "link_local"),
          { index: 2, gid, kind: "ipv6_global", ipv4: null, type: "IB/RoCE v1", version: "v1", netdev },
          { index: 3, gid, kind: "ipv6_global", ipv4: null, type: "RoCE v2", version: "v2", netdev },
        ];
        port.roceV2Ipv4Index = null;
        port.roceV2Ipv6Index = 3;
      }
    });

  /** The sysfs form of an IPv6 address (the builder's own expansion is tested elsewhere). */
  const sysfs = (ip: string) => expandGid(ip)!;

  test("the data HCAs stay in NCCL_IB_HCA; the uniform index 3, NCCL_IB_ADDR_FAMILY=AF_INET6 and the range are emitted", () => {
    const r = deriveNcclEnv(ipv6Only());
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8");
    expect(r.env.NCCL_IB_GID_INDEX).toBe("3");
    expect(r.env.NCCL_IB_ADDR_FAMILY).toBe("AF_INET6");
    expect(r.env.NCCL_IB_ADDR_RANGE).toBe("fd00:25:11:128::/64");
    expect(r.reasons.NCCL_IB_ADDR_FAMILY).toMatch(/only global IPv6 RoCE v2 GIDs/);
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(
      /mlx5_1 fd00:25:11:128::1, mlx5_2 fd00:25:11:128::2, … mlx5_8 fd00:25:11:128::8/,
    );
    // Any NCCL given NCCL_IB_GID_INDEX takes that index and never reads the family or range: the reasons say so.
    for (const v of ["NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE"]) {
      expect(r.reasons[v]).toMatch(
        /older releases ignore this variable, as does any release while NCCL_IB_GID_INDEX is set/,
      );
    }
    expect(codes(r.findings).filter((c) => c.startsWith("error"))).toEqual([]);
  });

  test("with NCCL 2.23 only the family and range are set (auto-selection picks the index); with 2.18 only the index", () => {
    const auto = deriveNcclEnv(ipv6Only(), { ncclVersion: "2.23" });
    expect(auto.env.NCCL_IB_ADDR_FAMILY).toBe("AF_INET6");
    expect(auto.env.NCCL_IB_ADDR_RANGE).toBe("fd00:25:11:128::/64");
    expect(auto.reasons.NCCL_IB_ADDR_RANGE).not.toMatch(/older releases/);
    expect(auto.env).not.toHaveProperty("NCCL_IB_GID_INDEX");
    const old = deriveNcclEnv(ipv6Only(), { ncclVersion: "2.18" });
    expect(old.env.NCCL_IB_GID_INDEX).toBe("3");
    expect(old.env).not.toHaveProperty("NCCL_IB_ADDR_FAMILY");
    expect(old.env).not.toHaveProperty("NCCL_IB_ADDR_RANGE");
  });

  test("an IPv6-only RoCE fabric on fd00:10::/64 (SLAAC addresses of two NIC batches) → NCCL_IB_ADDR_FAMILY=AF_INET6 and NCCL_IB_ADDR_RANGE=fd00:10::/64", () => {
    const slaac = (n: number) =>
      sysfs(n <= 4 ? `fd00:10::eaeb:d3ff:fecc:c9${20 + n}` : `fd00:10::e42:a1ff:fe6c:51${n}0`);
    const r = deriveNcclEnv(ipv6Only(slaac), { ncclVersion: "2.21.5" });
    expect(r.env).toMatchObject({ NCCL_IB_ADDR_FAMILY: "AF_INET6", NCCL_IB_ADDR_RANGE: "fd00:10::/64" });
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(
      /^the smallest IPv6 range, at most a \/64 \(one LAN\), holding every data HCA's RoCE v2 address \(mlx5_1 fd00:10::eaeb:d3ff:fecc:c921, mlx5_2 fd00:10::eaeb:d3ff:fecc:c922, … mlx5_8 fd00:10::e42:a1ff:fe6c:5180\), so the value fits the other nodes on those subnets and no global address outside it on those ports \(a second prefix, a VLAN\) is chosen$/,
    );
  });

  test("one rail per /64 (fd00:10:0:1::/64 … fd00:10:0:8::/64) → NCCL_IB_ADDR_RANGE=fd00:10::/60, the block holding all eight", () => {
    const r = deriveNcclEnv(
      ipv6Only((n) => sysfs(`fd00:10:0:${n}::2`)),
      { ncclVersion: "2.27" },
    );
    expect(r.env.NCCL_IB_ADDR_RANGE).toBe("fd00:10::/60");
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(
      /mlx5_1 fd00:10:0:1::2, mlx5_2 fd00:10:0:2::2, … mlx5_8 fd00:10:0:8::2/,
    );
  });

  test("mlx5_4 has its global IPv6 RoCE v2 GID at index 5, the others at 3, NCCL unknown → family and range, no index", () => {
    const inv = ipv6Only();
    const p = findHca(inv, "mlx5_4").ports[0]!;
    p.gids = p.gids.map((g) => (g.index === 3 ? { ...g, index: 5 } : g));
    p.roceV2Ipv6Index = 5;
    const r = deriveNcclEnv(inv);
    expect(r.env).not.toHaveProperty("NCCL_IB_GID_INDEX");
    expect(r.env).toMatchObject({ NCCL_IB_ADDR_FAMILY: "AF_INET6", NCCL_IB_ADDR_RANGE: "fd00:25:11:128::/64" });
    expect(r.reasons.NCCL_IB_ADDR_RANGE).toMatch(/is chosen \(older releases ignore this variable\)$/);
  });

  test("one HCA with IPv4 among IPv6-only ones: the IPv6-only HCAs are left out, as before", () => {
    const inv = ipv6Only();
    const p = findHca(inv, "mlx5_1").ports[0]!;
    p.gids.push(ipv4Gid(5, "25.11.128.2", "v2", "eth1"));
    p.roceV2Ipv4Index = 5;
    const r = deriveNcclEnv(inv);
    expect(r.env.NCCL_IB_HCA).toBe("=mlx5_1");
    expect(codes(r.findings)).toContain("error NCCL_NO_ROCEV2_IPV4_GID mlx5_2");
  });
});
