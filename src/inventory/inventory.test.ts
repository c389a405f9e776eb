import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { findExample } from "../examples/index.js";
import { openReader } from "../host/open.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { readInventory } from "./index.js";
import type { NodeInventory } from "./types.js";

const cache = new Map<string, Promise<NodeInventory>>();
function inventoryOf(example: string): Promise<NodeInventory> {
  let p = cache.get(example);
  if (!p) {
    p = openReader({ example }).then((r) => readInventory(r));
    cache.set(example, p);
  }
  return p;
}
const hca = (inv: NodeInventory, name: string) => inv.hcas.find((h) => h.name === name)!;
const dist = (inv: NodeInventory, gpu: number, name: string) =>
  inv.paths.find((p) => p.gpu === gpu && p.hca === name)?.distance;

describe("the seed node, as the seed describes it", () => {
  test("mlx5_0 carries the default route via eth0 and is management; mlx5_1..8 are data", async () => {
    const inv = await inventoryOf("a100-8x-roce");
    expect(inv.roles).toEqual({
      defaultRouteInterface: "eth0",
      managementHca: "mlx5_0",
      dataHcas: ["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8"],
    });
    expect(hca(inv, "mlx5_0").roleReason).toBe("carries the default route via eth0");
    expect(inv.problems).toEqual([]);
  });

  test("every data port is ACTIVE/LinkUp at 200 Gb/s with its RoCE v2 IPv4 GID at index 3", async () => {
    const inv = await inventoryOf("a100-8x-roce");
    for (const name of inv.roles.dataHcas) {
      const p = hca(inv, name).ports[0]!;
      expect(p).toMatchObject({ state: "ACTIVE", physState: "LinkUp", rateGbps: 200, linkLayer: "Ethernet" });
      expect(p.gidTableLength).toBe(255);
      expect(p.roceV2Ipv4Index).toBe(3);
      expect(p.gids).toHaveLength(4);
    }
    expect(hca(inv, "mlx5_1").ports[0]!.gids[3]).toMatchObject({ ipv4: "25.11.128.2", version: "v2", netdev: "eth1" });
    expect(hca(inv, "mlx5_1")).toMatchObject({ fwVer: "20.35.1012", hcaType: "MT4123", pciAddress: "0000:55:00.0" });
  });

  test("8 A100s at the seed's bus ids; each GPU is PIX to the two NICs on its switch", async () => {
    const inv = await inventoryOf("a100-8x-roce");
    expect(inv.driver).toMatchObject({ status: "ok", driverVersion: "470.141.03", cudaVersion: "11.4" });
    expect(inv.gpus.map((g) => g.pciAddress)).toEqual([
      "0000:53:00.0",
      "0000:59:00.0",
      "0000:6e:00.0",
      "0000:73:00.0",
      "0000:8d:00.0",
      "0000:92:00.0",
      "0000:c9:00.0",
      "0000:cf:00.0",
    ]);
    expect(inv.gpus.map((g) => g.numaNode)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect([dist(inv, 0, "mlx5_1"), dist(inv, 0, "mlx5_2"), dist(inv, 1, "mlx5_1")]).toEqual(["PIX", "PIX", "PIX"]);
    expect(dist(inv, 0, "mlx5_3")).toBe("PHB"); // another root complex, same NUMA node: nvidia-smi NODE
    expect(inv.paths.find((p) => p.gpu === 0 && p.hca === "mlx5_3")?.nvsmi).toBe("NODE");
    expect(dist(inv, 0, "mlx5_5")).toBe("SYS");
  });

  test("GPUDirect through nvidia_peermem; the process has IPC_LOCK and unlimited memlock", async () => {
    const inv = await inventoryOf("a100-8x-roce");
    expect(inv.gpuDirect).toMatchObject({ peermem: "nvidia_peermem", mechanism: "peermem", dmabufPossible: false });
    expect(inv.process).toMatchObject({ ipcLock: true, memlockSoft: "unlimited", memlockHard: "unlimited" });
    expect(inv.ofed).toMatchObject({ status: "present", flavor: "MLNX_OFED", version: "5.8-1.1.2.1" });
    expect(inv.devices.rdmaCm).toBe(true);
    expect(hca(inv, "mlx5_3").uverbs).toEqual(["uverbs3"]);
  });
});

describe("each variation shows up in the node model", () => {
  test("mlx5_5 with an IPv6 address has its IPv4 RoCE v2 GID at index 5", async () => {
    const p = hca(await inventoryOf("gid-index-5"), "mlx5_5").ports[0]!;
    expect(p.roceV2Ipv4Index).toBe(5);
    expect(p.roceV2Ipv6Index).toBe(3);
  });
  test("mlx5_5 without its IPv4 address has only link-local GIDs", async () => {
    const p = hca(await inventoryOf("no-rocev2-gid"), "mlx5_5").ports[0]!;
    expect(p.roceV2Ipv4Index).toBeNull();
    expect(p.gids.every((g) => g.kind === "link_local")).toBe(true);
  });
  test("a port down stays a data port, DOWN/Disabled, eth3 down", async () => {
    const inv = await inventoryOf("port-down");
    expect(hca(inv, "mlx5_3")).toMatchObject({ role: "data", ports: [{ state: "DOWN", physState: "Disabled" }] });
    expect(inv.netdevs.find((n) => n.name === "eth3")?.operstate).toBe("down");
  });
  test("InfiniBand HCAs: IB GIDs, no netdevs, all data; the default route leaves through a plain NIC", async () => {
    const inv = await inventoryOf("ib-8x-hdr");
    expect(inv.roles.managementHca).toBeNull();
    expect(inv.roles.defaultRouteInterface).toBe("eth0");
    expect(inv.roles.dataHcas).toHaveLength(8);
    const p = hca(inv, "mlx5_0").ports[0]!;
    expect(p).toMatchObject({ linkLayer: "InfiniBand", netdevs: [], roceV2Ipv4Index: null, lid: "0x1a" });
    expect(p.gids.map((g) => g.kind)).toEqual(["ib"]);
  });
  test("18 HCAs in natural order: mlx5_2 before mlx5_10", async () => {
    const inv = await inventoryOf("h100-18hca");
    const names = inv.hcas.map((h) => h.name);
    expect(names.indexOf("mlx5_2")).toBeLessThan(names.indexOf("mlx5_10"));
    expect(inv.roles.dataHcas).toHaveLength(16);
    expect(hca(inv, "mlx5_17")).toMatchObject({ role: "excluded" });
    expect(hca(inv, "mlx5_17").roleReason).toMatch(/no GPU within a PCIe switch/);
    expect(inv.gpuDirect.dmabufPossible).toBe(true);
  });
  test("a RoCE LAG bond carrying the default route is the management HCA", async () => {
    const inv = await inventoryOf("bond-management");
    expect(hca(inv, "mlx5_bond_0")).toMatchObject({ role: "management", isBond: true, netdevs: ["bond0"] });
    expect(inv.netdevs.find((n) => n.name === "bond0")?.bondSlaves).toEqual(["eth0", "eth1"]);
    expect(inv.roles.dataHcas[0]).toBe("mlx5_2");
  });
  test("GPU7 behind its own root complex has no data NIC within PXB", async () => {
    const inv = await inventoryOf("gpu-no-near-nic");
    const near = inv.paths.filter((p) => p.gpu === 7 && (p.distance === "PIX" || p.distance === "PXB"));
    expect(near).toEqual([]);
    expect(dist(inv, 7, "mlx5_7")).toBe("PHB");
  });
  test("nvidia-smi timed out: driver timeout, the GPUs still listed from the PCI bus", async () => {
    const inv = await inventoryOf("nvidia-smi-timeout");
    expect(inv.driver.status).toBe("timeout");
    expect(inv.gpus.map((g) => g.pciAddress)[7]).toBe("0000:cf:00.0");
  });
  test("no ofed_info: OFED absent", async () => {
    expect((await inventoryOf("no-ofed")).ofed.status).toBe("absent");
  });
  test("a default pod: no IPC_LOCK, 64 KiB memlock, 64 MiB /dev/shm", async () => {
    const inv = await inventoryOf("pod-restricted");
    expect(inv.process).toMatchObject({ ipcLock: false, memlockSoft: 65536 });
    expect(inv.shmBytes).toBe(64 * 1024 * 1024);
  });
  test("GPU2 row remap pending, GPU3 at x8, mlx5_4 error counters, mlx5_8 older firmware", async () => {
    expect((await inventoryOf("gpu-row-remap")).gpus[2]?.remappedRows).toMatchObject({
      pending: true,
      uncorrectable: 1,
    });
    const x8 = (await inventoryOf("gpu-pcie-x8")).gpus[3]!;
    expect([x8.link?.currentWidth, x8.link?.maxWidth, x8.pcieWidth.current]).toEqual([8, 16, 8]);
    const c = hca(await inventoryOf("port-errors"), "mlx5_4").ports[0]!.counters;
    expect([c.symbol_error, c.link_downed]).toEqual([37, 2]);
    expect(hca(await inventoryOf("fw-mismatch"), "mlx5_8").fwVer).toBe("20.33.1048");
  });
  test("no peermem and no uverbs", async () => {
    expect((await inventoryOf("no-peermem")).gpuDirect.mechanism).toBeNull();
    expect((await inventoryOf("no-uverbs")).devices.infiniband.some((d) => d.startsWith("uverbs"))).toBe(false);
  });
});

/** Wraps a reader so that some reads fail with a given errno. */
function failing(inner: HostReader, code: string, match: (p: string) => boolean): HostReader {
  const fail = (p: string): ReadOutcome<string> => ({ ok: false, error: { code, message: `${p}: ${code}` } });
  return {
    description: inner.description,
    readText: (p) => (match(p) ? fail(p) : inner.readText(p)),
    list: (p) => (match(p) ? (fail(p) as ReadOutcome<string[]>) : inner.list(p)),
    realpath: (p) => inner.realpath(p),
    exists: (p) => inner.exists(p),
    fsSize: (p) => inner.fsSize(p),
    run: (f, a, o) => inner.run(f, a, o),
  };
}

describe("read failures become problems naming the path and the fix", () => {
  test("permission denied on a port's state", async () => {
    const base = await openReader({ example: "a100-8x-roce" });
    const inv = await readInventory(failing(base, "EACCES", (p) => p.endsWith("mlx5_3/ports/1/state")));
    const p = inv.problems.find((x) => x.path === "/sys/class/infiniband/mlx5_3/ports/1/state");
    expect(p?.code).toBe("host.read_failed");
    expect(p?.hint).toMatch(/Run as root|--root \/host/);
    expect(hca(inv, "mlx5_3").ports[0]!.state).toBe("UNKNOWN");
  });

  test("any garbage in any sysfs or proc file: problems, never a throw", async () => {
    const snap = findExample("a100-8x-roce")!.snapshot();
    const keys = Object.keys(snap.files).filter((k) => !k.includes("/gids/") && !k.includes("counters"));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...keys), fc.string({ unit: "binary", maxLength: 40 })), {
          minLength: 1,
          maxLength: 8,
        }),
        async (edits) => {
          const files = { ...snap.files };
          for (const [k, v] of edits) files[k] = v;
          const inv = await readInventory(new SnapshotHostReader({ ...snap, files }));
          expect(inv.hcas).toHaveLength(9);
        },
      ),
      { numRuns: 40 },
    );
  });
});
