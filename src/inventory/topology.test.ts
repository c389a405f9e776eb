import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { BDF, pciDistance, splitPciPath } from "./topology.js";

const sw0 = "/sys/devices/pci0000:4e/0000:4e:02.0/0000:4f:00.0";
const place = (path: string, numaNode: number | null = 0) => ({ path, numaNode });

describe("GPU↔NIC distance in NCCL's terms", () => {
  test("a GPU and a NIC on two downstream ports of one switch are PIX", () => {
    const d = pciDistance(place(`${sw0}/0000:50:00.0/0000:53:00.0`), place(`${sw0}/0000:50:01.0/0000:55:00.0`));
    expect(d).toEqual({ nvsmi: "PIX", nccl: "PIX" });
  });
  test("devices that meet only above a chain of switches are PXB", () => {
    const top = `${sw0}/0000:50:00.0/0000:51:00.0`;
    const d = pciDistance(place(`${top}/0000:52:00.0/0000:53:00.0`), place(`${sw0}/0000:50:01.0/0000:55:00.0`));
    expect(d?.nccl).toBe("PXB");
  });
  test("two root ports of one root complex meet at the host bridge: PHB", () => {
    const d = pciDistance(
      place("/sys/devices/pci0000:4e/0000:4e:02.0/0000:4f:00.0"),
      place("/sys/devices/pci0000:4e/0000:4e:03.0/0000:52:00.0"),
    );
    expect(d?.nccl).toBe("PHB");
  });
  test("different root complexes on one NUMA node are nvidia-smi NODE, which NCCL calls PHB", () => {
    const d = pciDistance(
      place(`${sw0}/0000:50:00.0/0000:53:00.0`, 0),
      place("/sys/devices/pci0000:68/0000:68:02.0/0000:70:00.0", 0),
    );
    expect(d).toEqual({ nvsmi: "NODE", nccl: "PHB" });
  });
  test("across NUMA nodes it is SYS", () => {
    const d = pciDistance(
      place(`${sw0}/0000:50:00.0/0000:53:00.0`, 0),
      place("/sys/devices/pci0000:87/0000:87:02.0/0000:8f:00.0", 1),
    );
    expect(d).toEqual({ nvsmi: "SYS", nccl: "SYS" });
  });
  test("a path that is not a PCI path gives no distance", () => {
    expect(pciDistance(place("/sys/devices/virtual/net/bond0"), place(`${sw0}/0000:50:00.0/0000:53:00.0`))).toBeNull();
  });
});

describe("a resolved sysfs path split into its root complex and PCI chain", () => {
  test("`…/pci0000:4e/0000:4e:02.0/0000:4f:00.0/net/x/0000:50:00.0` → root pci0000:4e and the three addresses", () => {
    expect(splitPciPath(`${sw0}/net/x/0000:50:00.0`)).toEqual({
      root: "pci0000:4e",
      chain: ["0000:4e:02.0", "0000:4f:00.0", "0000:50:00.0"],
    });
    expect(splitPciPath("/sys/devices/pci0000:4e")).toBeNull();
    expect(splitPciPath("/sys/devices/pci0000:4E/0000:4e:02.0")).toBeNull();
  });

  test("any path of PCI-like components splits as the component-by-component patterns say", () => {
    const reference = (path: string) => {
      const parts = path.split("/").filter(Boolean);
      const rootAt = parts.findIndex((p) => /^pci[0-9a-f]{4}:[0-9a-f]{2}$/.test(p));
      const chain = rootAt < 0 ? [] : parts.slice(rootAt + 1).filter((p) => BDF.test(p));
      return rootAt < 0 || chain.length === 0 ? null : { root: parts[rootAt]!, chain };
    };
    const part = fc.constantFrom(
      "",
      "sys",
      "pci0000:4e",
      "pci0000:4E",
      "pci000:4e",
      "pci0000:4e0",
      "0000:4e:02.0",
      "0000:4e:02.7",
      "0000:4e:02.8",
      "0000:4g:02.0",
      "0000-4e:02.0",
      "0000:4e:02.00",
      "net",
      "..",
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), fc.boolean(), (parts, lead) => {
        const path = `${lead ? "/" : ""}${parts.join("/")}`;
        expect(splitPciPath(path)).toEqual(reference(path));
      }),
      { seed: 20261203, numRuns: 3000 },
    );
  });
});
