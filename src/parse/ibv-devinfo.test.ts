import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { assertParserTotal } from "../../test/support/property.js";
import { parseIbvDevinfo } from "./ibv-devinfo.js";

describe("ibv_devinfo", () => {
  test("plain output of the seed node: 9 RoCE devices, port 1 ACTIVE on Ethernet, no rate without -v", () => {
    const r = parseIbvDevinfo(capture("ibv_devinfo", "a100-roce"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.verbose).toBe(false);
    expect(r.value.devices.map((d) => d.name)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => `mlx5_${i}`));
    expect(r.value.devices[1]).toMatchObject({ fwVer: "20.31.1014", partId: "4123", boardId: "MT_0000000223" });
    expect(r.value.devices[1]?.ports).toEqual([
      { port: 1, state: "ACTIVE", linkLayer: "Ethernet", maxMtu: 4096, activeMtu: 4096, smLid: "0", lid: "0" },
    ]);
    expect(r.value.devices[0]?.ports[0]?.activeMtu).toBe(1024);
    expect(r.value.devices[0]?.portCount).toBe(1);
    expect(r.problems).toEqual([]);
  });

  test("-v adds the rate (width × lane speed), the physical state and the GIDs, expanded from compressed form", () => {
    const r = parseIbvDevinfo(capture("ibv_devinfo", "a100-roce-verbose"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.verbose).toBe(true);
    const [mgmt, data] = r.value.devices;
    expect(mgmt?.ports[0]?.rateGbps).toBe(25);
    expect(data?.ports[0]).toMatchObject({ rateGbps: 200, physState: "LinkUp" });
    expect(data?.ports[0]?.gids?.[3]).toEqual({
      index: 3,
      gid: "0000:0000:0000:0000:0000:ffff:190b:8002",
      version: "v2",
    });
  });

  test("a port that is down reads as DOWN / Disabled with no rate", () => {
    const r = parseIbvDevinfo(capture("ibv_devinfo", "a100-roce-port-down-verbose"));
    if (!r.ok) throw new Error("expected ok");
    const port = r.value.devices.find((d) => d.name === "mlx5_3")?.ports[0];
    expect(port).toMatchObject({ state: "DOWN", physState: "Disabled" });
    expect(port?.rateGbps).toBeUndefined();
    expect(r.value.devices.find((d) => d.name === "mlx5_6")?.ports[0]?.rateGbps).toBe(100);
  });

  test("transport `unspecified` (EFA): a printed `InfiniBand` link layer is not InfiniBand; an IB transport's is", () => {
    // Old ibv_devinfo printed an unspecified link layer as InfiniBand; sysfs reads Unknown
    // (https://github.com/linux-rdma/rdma-core/pull/884). Device values here are this project's own.
    const block = (name: string, transport: string) =>
      [
        `hca_id:\t${name}`,
        `\ttransport:\t\t\t${transport}`,
        "\tvendor_id:\t\t\t0x1d0f",
        "\tphys_port_cnt:\t\t\t1",
        "\t\tport:\t1",
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
        "\t\t\tlink_layer:\t\tInfiniBand",
      ].join("\n");
    const r = parseIbvDevinfo(`${block("efa_1", "unspecified (4)")}\n\n${block("mlx5_4", "InfiniBand (0)")}`);
    if (!r.ok) throw new Error("expected ok");
    expect(r.value.devices.map((d) => `${d.name}:${d.ports[0]?.linkLayer}`)).toEqual([
      "efa_1:Unknown",
      "mlx5_4:InfiniBand",
    ]);
  });

  test("`No IB devices found` is a valid answer: no devices", () => {
    const r = parseIbvDevinfo("$ ibv_devinfo\nNo IB devices found\n");
    expect(r.ok && r.value).toMatchObject({ devices: [], noDevices: true });
  });

  for (const [name, text] of Object.entries(
    captureVariants(capture("ibv_devinfo", "a100-roce-verbose"), "ibv_devinfo -v"),
  )) {
    test(`a ${name} capture still reads`, () => {
      const r = parseIbvDevinfo(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      const expected = name === "truncated" ? 8 : 9;
      expect(r.value.devices.length).toBeGreaterThanOrEqual(expected);
      if (name !== "truncated") expect(r.problems).toEqual([]);
      expect(r.value.devices[1]?.ports[0]).toMatchObject({ state: "ACTIVE", rateGbps: 200 });
    });
  }

  test("a paste cut after the first device's name, before any port → its name, and that no port was checked (ibv_devinfo.no_ports)", () => {
    const head = capture("ibv_devinfo", "a100-roce-verbose").split("\n").slice(0, 3).join("\n");
    const r = parseIbvDevinfo(head);
    expect(r.ok && r.value.devices.map((d) => `${d.name}:${d.ports.length}`)).toEqual(["mlx5_0:0"]);
    expect(r.problems.map((p) => p.code)).toContain("ibv_devinfo.no_ports");
    expect(r.problems.find((p) => p.code === "ibv_devinfo.no_ports")?.message).toMatch(
      /mlx5_0 named but no port .*No port was checked/,
    );
  });

  // `ibv_devinfo -l` prints `"%d HCA%s found:\n"` then `"\t%s\n"` per device (libibverbs/examples/devinfo.c in
  // https://github.com/linux-rdma/rdma-core): names only, no port.
  test("-l alone names the devices and reads no port; a list before full blocks leaves the blocks to decide", () => {
    const list = parseIbvDevinfo("# ibv_devinfo -l\n3 HCAs found:\n\tmlx5_2\n\tmlx5_0\n\tmlx5_1\n\n");
    if (!list.ok) throw new Error(JSON.stringify(list.problems));
    expect(list.value.listOnly).toBe(true);
    expect(list.value.devices.map((d) => [d.name, d.ports.length])).toEqual([
      ["mlx5_0", 0],
      ["mlx5_1", 0],
      ["mlx5_2", 0],
    ]);
    const one = parseIbvDevinfo("1 HCA found:\n\tbnxt_re0\n");
    expect(one.ok && one.value.devices.map((d) => d.name)).toEqual(["bnxt_re0"]);
    // Lines after the count's last name are not devices.
    const cut = parseIbvDevinfo("1 HCA found:\n\tmlx5_0\n\tuverbs0\n");
    expect(cut.ok && cut.value.devices.map((d) => d.name)).toEqual(["mlx5_0"]);
    const both = parseIbvDevinfo(`2 HCAs found:\n\tmlx5_0\n\tmlx5_1\n\n${capture("ibv_devinfo", "a100-roce")}`);
    if (!both.ok) throw new Error(JSON.stringify(both.problems));
    expect(both.value.listOnly).toBeUndefined();
    expect(both.value.devices.every((d) => d.ports.length > 0)).toBe(true);
    // A wrapper's removal may take the tab with it: the count still bounds the names.
    const bare = parseIbvDevinfo("2 HCAs found:\nmlx5_0\nmlx5_1\nuid=0(root)\n");
    expect(bare.ok && bare.value.devices.map((d) => d.name)).toEqual(["mlx5_0", "mlx5_1"]);
    // A line that only looks like the count, with no name after it, lists nothing.
    expect(parseIbvDevinfo("2 HCAs found:\nnothing else\n").ok).toBe(false);
  });

  test("property: random and mutated input never throws", () => {
    assertParserTotal(parseIbvDevinfo, capture("ibv_devinfo", "a100-roce-verbose"));
  });
});
