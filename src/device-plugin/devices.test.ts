import { describe, expect, test } from "vitest";
import { deriveDeviceList, isPortHealthy, sharedUnitHealth } from "./devices.js";
import { closeness, preferAllocation } from "./preferred.js";

describe("unit health", () => {
  test("a port is healthy only when ACTIVE and LinkUp", () => {
    expect(isPortHealthy("4: ACTIVE", "5: LinkUp")).toBe(true);
    expect(isPortHealthy("4: ACTIVE", "3: Disabled")).toBe(false);
    expect(isPortHealthy("1: DOWN", "5: LinkUp")).toBe(false);
    expect(isPortHealthy(null, "5: LinkUp")).toBe(false);
  });

  test("shared policy all: Unhealthy only when every data HCA is down; any: as soon as one is", () => {
    expect(sharedUnitHealth([true, false, true], "all")).toBe("Healthy");
    expect(sharedUnitHealth([false, false], "all")).toBe("Unhealthy");
    expect(sharedUnitHealth([true, false, true], "any")).toBe("Unhealthy");
    expect(sharedUnitHealth([], "all")).toBe("Unhealthy");
  });

  test("a node without a selected HCA advertises nothing in shared mode", () => {
    expect(
      deriveDeviceList({ mode: "shared", hcas: [], health: new Map(), sharedUnits: 1000, sharedHealth: "all" }),
    ).toEqual([]);
  });

  test("exclusive mode: an HCA without a NUMA node (-1 or unknown) has no topology", () => {
    const list = deriveDeviceList({
      mode: "exclusive",
      hcas: [
        { name: "mlx5_0", numaNode: -1 },
        { name: "mlx5_1", numaNode: null },
      ],
      health: new Map([["mlx5_0", true]]),
      sharedUnits: 0,
      sharedHealth: "all",
    });
    expect(list).toEqual([
      { ID: "mlx5_0", health: "Healthy", topology: null },
      { ID: "mlx5_1", health: "Unhealthy", topology: null },
    ]);
  });
});

describe("preferred allocations", () => {
  const sw = (root: string, s: string, port: string, nic: string) =>
    `/sys/devices/pci0000:${root}/0000:${root}:01.0/0000:${s}:00.0/0000:${s}:${port}.0/0000:${nic}:00.0`;
  const hcas = [
    { name: "mlx5_1", numaNode: 0, pciPath: sw("0e", "10", "00", "50") },
    { name: "mlx5_2", numaNode: 0, pciPath: sw("0e", "10", "01", "51") },
    { name: "mlx5_3", numaNode: 1, pciPath: sw("8a", "12", "00", "54") },
    { name: "mlx5_4", numaNode: 1, pciPath: sw("8a", "12", "01", "55") },
  ];

  test("HCAs behind one switch are closer than HCAs on one NUMA node, which are closer than across nodes", () => {
    expect(closeness(hcas[0]!, hcas[1]!)).toBeGreaterThan(closeness(hcas[0]!, { ...hcas[2]!, numaNode: 0 }));
    expect(closeness(hcas[0]!, { ...hcas[2]!, numaNode: 0 })).toBeGreaterThan(closeness(hcas[0]!, hcas[2]!));
  });

  test("asks for one more than must_include → the partner behind the same switch", () => {
    expect(preferAllocation(hcas, ["mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4"], ["mlx5_4"], 2)).toEqual([
      "mlx5_4",
      "mlx5_3",
    ]);
  });

  test("only what is available is offered; unknown IDs still come back when nothing better exists", () => {
    expect(preferAllocation(hcas, ["mlx5_1", "mlx5_3", "mlx5_9"], [], 2)).toEqual(["mlx5_1", "mlx5_3"]);
    expect(preferAllocation(hcas, ["mlx5_9", "mlx5_10"], [], 2)).toEqual(["mlx5_9", "mlx5_10"]);
  });
});
