import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { assertParserTotal } from "../../test/support/property.js";
import { parseIbdev2netdev } from "./ibdev2netdev.js";

describe("ibdev2netdev", () => {
  test("plain lines map each RDMA port to its netdev and link", () => {
    const r = parseIbdev2netdev(capture("ibdev2netdev", "a100-roce-port-down"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.mappings).toHaveLength(9);
    expect(r.value.mappings[0]).toEqual({ device: "mlx5_0", port: 1, netdev: "eth0", up: true });
    expect(r.value.mappings[3]).toEqual({ device: "mlx5_3", port: 1, netdev: "eth3", up: false });
  });

  test("a prefix before a plain line (stern's pod and container, one line or many) is not the device", () => {
    // stern prints `POD CONTAINER` before each line of a pod's log (https://github.com/stern/stern#output); a paste cut
    // to its first line has no second line to prove the prefix by, and must still not name the pod as the device.
    for (const text of [
      "rdma-diag-7f9c5 rdma-tools mlx5_10 port 1 ==> net1 (Up)",
      "rdma-diag-7f9c5 rdma-tools mlx5_10 port 1 ==> net1 (Up)\nrdma-diag-7f9c5 rdma-tools mlx5_11 port 1 ==> net2 (Down)",
      "gpu-07: mlx5_10 port 1 ==> net1 (Up)",
    ]) {
      const r = parseIbdev2netdev(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.value.mappings.map((m) => `${m.device}/${m.port}=${m.netdev}`)).toEqual(
        ["mlx5_10/1=net1", "mlx5_11/1=net2"].slice(0, text.split("\n").length),
      );
    }
  });

  test("-v lines add the PCI address, card, firmware and port state (card text with parentheses kept whole)", () => {
    const r = parseIbdev2netdev(capture("ibdev2netdev", "a100-roce-port-down-verbose"));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.verbose).toBe(true);
    expect(r.value.mappings[3]).toMatchObject({
      device: "mlx5_3",
      pciAddress: "0000:6c:00.0",
      fwVer: "20.31.1014",
      portState: "DOWN",
      netdev: "eth3",
      up: false,
    });
    expect(r.value.mappings[1]?.card).toContain("HDR IB (200Gb/s)");
  });

  // Shape seen at https://github.com/imbue-ai/cluster-health/issues/4: `ibdev2netdev | column -t` with a note the user
  // wrote after each state as a shell comment. Hosts and notes here are our own.
  test("a trailing `# comment` after the state is not part of the mapping (plain and -v lines)", () => {
    const text = [
      "$ ibdev2netdev | column -t",
      "mlx5_4   port  1  ==>  ibp12s0       (Up)      # rail 1 (IB)",
      "mlx5_7   port  1  ==>  enp3s0f1np1   (Down)    #",
      "0000:0c:00.0 mlx5_4 (MT4129 - MCX75310AAS-NEAT) CX7 fw 28.39.1002 port 1 (ACTIVE) ==> ibp12s0 (Up) # spare",
    ].join("\n");
    const r = parseIbdev2netdev(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.problems).toEqual([]);
    expect(r.value.mappings.map((m) => `${m.device}/${m.port}=${m.netdev}:${m.up}:${m.portState ?? "-"}`)).toEqual([
      "mlx5_4/1=ibp12s0:true:-",
      "mlx5_4/1=ibp12s0:true:ACTIVE",
      "mlx5_7/1=enp3s0f1np1:false:-",
    ]);
  });

  // A guide's sample with an arrow pointing at the port in use (shape seen in a guide committed to a public repository,
  // index-file 54497888902). Own names.
  test("an arrow and a note after the state are not part of the mapping", () => {
    const r = parseIbdev2netdev(
      [
        "rocep1s0f0   port 1 ==> enp1s0f0np0   (Down)",
        "rocep1s0f1   port 1 ==> enp1s0f1np1   (Up)    ← the port in use",
        "roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)    <-- its twin",
      ].join("\n"),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.problems).toEqual([]);
    expect(r.value.mappings.map((m) => `${m.device}=${m.netdev}:${m.up}`).sort()).toEqual([
      "roceP2p1s0f1=enP2p1s0f1np1:true",
      "rocep1s0f0=enp1s0f0np0:false",
      "rocep1s0f1=enp1s0f1np1:true",
    ]);
  });

  // A setup guide's check, `rdma link show` then `ibdev2netdev`, pasted as one block (shape seen at
  // https://github.com/DaoCloud/DaoCloud-docs, its OFED driver page; this test's own NICs).
  test("`rdma link` and `ibdev2netdev` of the same ports in one paste: one mapping a port, the netdev's own state", () => {
    const text = [
      "$ rdma link show",
      "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens2f0np0",
      "link mlx5_1/1 state ACTIVE physical_state LINK_UP netdev ens2f1np1",
      "",
      "$ ibdev2netdev",
      "mlx5_0 port 1 ==> ens2f0np0 (Up)",
      "mlx5_1 port 1 ==> ens2f1np1 (Down)",
    ].join("\n");
    const r = parseIbdev2netdev(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.mappings.map((m) => `${m.device}/${m.port}=${m.netdev}:${m.up}:${m.portState ?? "-"}`)).toEqual([
      "mlx5_0/1=ens2f0np0:true:ACTIVE",
      "mlx5_1/1=ens2f1np1:false:ACTIVE",
    ]);
  });

  for (const [name, text] of Object.entries(
    captureVariants(capture("ibdev2netdev", "a100-roce-verbose"), "ibdev2netdev -v"),
  )) {
    test(`a ${name} capture still reads`, () => {
      const r = parseIbdev2netdev(text);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.value.mappings.length).toBe(name === "truncated" ? 8 : 9);
      if (name === "truncated") expect(r.problems.map((p) => p.code)).toEqual(["ibdev2netdev.bad_line"]);
    });
  }

  test("property: random and mutated input never throws", () => {
    assertParserTotal(parseIbdev2netdev, capture("ibdev2netdev", "a100-roce-verbose"));
  });
});
