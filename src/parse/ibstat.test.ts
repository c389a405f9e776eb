import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { assertParserTotal } from "../../test/support/property.js";
import { parseIbstat } from "./ibstat.js";

describe("ibstat / ibstatus", () => {
  test("ibstat CA blocks: state Active → ACTIVE, rate as a number, CA type and firmware kept", () => {
    const r = parseIbstat(capture("ibstat", "a100-roce"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.format).toBe("ibstat");
    expect(r.value.devices).toHaveLength(9);
    expect(r.value.devices[0]).toMatchObject({ name: "mlx5_0", partId: "MT4117", fwVer: "14.32.1010" });
    expect(r.value.devices[8]?.ports).toEqual([
      { port: 1, state: "ACTIVE", physState: "LinkUp", linkLayer: "Ethernet", rateGbps: 200, lid: "0", smLid: "0" },
    ]);
    expect(r.value.devices[8]?.portCount).toBe(1);
    expect(r.problems).toEqual([]);
  });

  test("a port Down / Disabled maps to the kernel words DOWN / Disabled", () => {
    const r = parseIbstat(capture("ibstat", "a100-roce-port-down"));
    if (!r.ok) throw new Error("expected ok");
    expect(r.value.devices[3]?.ports[0]).toMatchObject({ state: "DOWN", physState: "Disabled" });
  });

  test("ibstatus (`4: ACTIVE`, `200 Gb/sec (4X HDR)`) gives the same shape", () => {
    const r = parseIbstat(capture("ibstat", "a100-roce-ibstatus"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.format).toBe("ibstatus");
    expect(r.value.devices.map((d) => d.ports[0]?.rateGbps)).toEqual([25, 200, 200, 200, 200, 200, 200, 200, 200]);
    expect(r.value.devices[1]?.ports[0]).toMatchObject({ state: "ACTIVE", physState: "LinkUp", linkLayer: "Ethernet" });
  });

  // `ibstatus` then `ibstat` pasted together (shape seen at https://pastebin.com/5AwqNUAB; this test's own GUIDs).
  test("one port read by ibstatus and again by ibstat is one port, the later block's values first", () => {
    const text = [
      "Infiniband device 'mthca0' port 2 status:",
      "\tstate:\t\t 1: DOWN",
      "\trate:\t\t 10 Gb/sec (4X)",
      "\tlink_layer:\t InfiniBand",
      "CA 'mthca0'",
      "\tCA type: MT25208",
      "\tNumber of ports: 2",
      "\tPort 1:",
      "\t\tState: Initializing",
      "\t\tRate: 10",
      "\t\tLink layer: InfiniBand",
      "\tPort 2:",
      "\t\tState: Down",
      "\t\tRate: 10",
      "\t\tLink layer: InfiniBand",
    ].join("\n");
    const r = parseIbstat(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices.flatMap((d) => d.ports.map((p) => `${d.name}/${p.port}:${p.state}:${p.rateGbps}`))).toEqual([
      "mthca0/1:INIT:10",
      "mthca0/2:DOWN:10",
    ]);
  });

  // Command notes showing `ibstat -l` and `ibstat mlx4_1 1` (shapes seen at
  // https://github.com/Heioy/Books, its ibstat page; this test's own devices and GUIDs).
  test("`ibstat -l`'s names are the devices, no port read; `ibstat CA PORT`'s `CA: 'name'` heads its one port", () => {
    const list = parseIbstat("mlx5_0\nmlx5_1\nmlx5_3\n");
    if (!list.ok) throw new Error(JSON.stringify(list.problems));
    expect(list.value.devices.map((d) => [d.name, d.ports.length])).toEqual([
      ["mlx5_0", 0],
      ["mlx5_1", 0],
      ["mlx5_3", 0],
    ]);
    expect(list.problems.map((p) => p.code)).toContain("ibstat.no_ports");
    const one = parseIbstat(
      "CA: 'mlx4_1'\nPort 1:\nState: Active\nPhysical state: LinkUp\nRate: 40\nLink layer: InfiniBand\n",
    );
    if (!one.ok) throw new Error(JSON.stringify(one.problems));
    expect(
      one.value.devices.flatMap((d) => d.ports.map((p) => `${d.name}/${p.port}:${p.state}:${p.rateGbps}`)),
    ).toEqual(["mlx4_1/1:ACTIVE:40"]);
  });

  // infiniband-diags 1.5 printed the link layer as `IB` (shape seen in Oracle's appliance guide,
  // https://docs.oracle.com/cd/E72784_01/BIXOG/GUID-C9EB7E1B-B762-4ABC-9725-13DAB44C8B23.htm; our own GUIDs).
  test("an old ibstat's `Link layer: IB` is InfiniBand", () => {
    const r = parseIbstat(
      "CA 'mlx4_0'\n\tCA type: MT26428\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tRate: 40\n\t\tPort GUID: 0x0021280001a0c3e1\n\t\tLink layer: IB\n",
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.devices[0]?.ports[0]?.linkLayer).toBe("InfiniBand");
  });

  test("a capture cut inside the last CA block says a port is missing", () => {
    const text = capture("ibstat", "a100-roce");
    const r = parseIbstat(text.slice(0, text.lastIndexOf("\tPort 1:")));
    expect(r.problems.map((p) => p.code)).toEqual(["ibstat.missing_ports"]);
    expect(r.problems[0]?.message).toMatch(/mlx5_8: 1 port\(s\) announced, 0 read/);
  });

  for (const [name, text] of Object.entries(captureVariants(capture("ibstat", "a100-roce"), "ibstat"))) {
    test(`a ${name} capture still reads`, () => {
      const r = parseIbstat(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.value.devices.length).toBe(9);
      expect(r.value.devices[0]?.ports[0]?.state).toBe("ACTIVE");
    });
  }

  test("a paste cut after the first device's name, before any port → its name, and that no port was checked (ibstat.no_ports)", () => {
    const head = capture("ibstat", "a100-roce").split("\n").slice(0, 2).join("\n");
    const r = parseIbstat(head);
    expect(r.ok && r.value.devices.map((d) => `${d.name}:${d.ports.length}`)).toEqual(["mlx5_0:0"]);
    expect(r.problems.map((p) => p.code)).toContain("ibstat.no_ports");
    expect(r.problems.find((p) => p.code === "ibstat.no_ports")?.message).toMatch(
      /mlx5_0 named but no port .*No port was checked/,
    );
  });

  // Shape: `ibstat | grep "CA '"` as pasted in https://github.com/NVIDIA/nccl/issues/1129
  test('`ibstat | grep "CA \'"` (every CA named, no port) → the devices, and that no port was checked', () => {
    const r = parseIbstat("CA 'mlx5_0'\nCA 'mlx5_1'\nCA 'mlx5_bond_0'\n");
    expect(r.ok).toBe(true);
    expect(r.ok && r.value.devices.map((d) => `${d.name}:${d.ports.length}`)).toEqual([
      "mlx5_0:0",
      "mlx5_1:0",
      "mlx5_bond_0:0",
    ]);
    expect(r.problems.map((p) => p.code)).toContain("ibstat.no_ports");
  });

  test("property: random and mutated input never throws", () => {
    assertParserTotal(parseIbstat, capture("ibstat", "a100-roce"));
    assertParserTotal(parseIbstat, capture("ibstat", "a100-roce-ibstatus"));
  });
});

// Notes that explain each value with a shell comment after it (`State: Active   # 反之为 Down`, "else Down"; shape
// seen in Chinese RDMA notes committed to a public repository, index-file 49019899460). Own GUIDs and numbers.
test("a note after a value (`# …`, `<-- …`) is the writer's, not ibstat's: the value is read without it", () => {
  const text = [
    "CA 'mlx4_0'",
    "\tCA type: MT26428",
    "\tNumber of ports: 1",
    "\tPort 1:",
    "\t\tState: Active          # 反之为 Down",
    "\t\tPhysical state: LinkUp # 反之为 Polling",
    "\t\tRate: 40               <-- QDR",
    "\t\tBase lid: 12",
    "\t\tLink layer: InfiniBand",
  ].join("\n");
  const r = parseIbstat(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  expect(r.value.devices[0]?.ports).toEqual([
    { port: 1, state: "ACTIVE", physState: "LinkUp", linkLayer: "InfiniBand", rateGbps: 40, lid: "12" },
  ]);
});
