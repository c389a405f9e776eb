import { describe, expect, test } from "vitest";
import { pciDistance } from "./topology.js";

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
