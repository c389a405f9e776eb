/**
 * `analyze` of ibv_devinfo pastes judges what verify judges on a host: an iWARP device among the NICs
 * (`transport: iWARP (1)`, as ibv_devinfo prints irdma in iWARP mode; rdma-core's ibv_devinfo prints
 * `transport: %s (%d)` from ibv_node_type/transport_type,
 * https://github.com/linux-rdma/rdma-core/blob/master/libibverbs/examples/devinfo.c) and RoCE ports whose active MTU
 * is below 4096 on every data NIC (the kernel derives it from the netdev MTU: iboe_get_mtu in include/rdma/ib_addr.h).
 */
import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { analyzeText } from "./index.js";

const codes = (text: string) =>
  analyzeText("x", text).findings.map((f) => ({ code: f.code, severity: f.severity, subject: f.subject }));

describe("ibv_devinfo: transport and absolute RoCE MTU", () => {
  test("irdma in iWARP mode: IWARP_DEVICE, said as ibv_devinfo printed it; its low MTU is not called RoCE's", () => {
    for (const [how, text] of Object.entries(captureVariants(capture("ibv_devinfo", "irdma-iwarp"), "ibv_devinfo"))) {
      expect(codes(text), how).toEqual([{ code: "IWARP_DEVICE", severity: "error", subject: "irdma0" }]);
    }
    const [f] = analyzeText("x", capture("ibv_devinfo", "irdma-iwarp")).findings;
    expect(f?.message).toContain("ibv_devinfo transport: iWARP");
    expect(analyzeText("x", capture("ibv_devinfo", "irdma-iwarp")).data).toMatchObject({
      devices: [{ name: "irdma0", transport: "iWARP" }],
    });
  });

  test("InfiniBand-transport devices (mlx5 RoCE) are not iWARP; a healthy 4096 capture has no MTU finding", () => {
    const found = codes(capture("ibv_devinfo", "a100-roce")).map((c) => c.code);
    expect(found).not.toContain("IWARP_DEVICE");
    expect(found).not.toContain("ROCE_MTU_LOW");
  });

  test("every RoCE data port at active_mtu 1024 (netdevs at 1500): ROCE_MTU_LOW naming them, even though uniform", () => {
    const text = capture("ibv_devinfo", "a100-roce").replaceAll("4096 (5)", "1024 (3)");
    const found = codes(text);
    // A plain ibv_devinfo shows no rates, so the management NIC cannot be told apart: it is named with the rest.
    expect(found).toContainEqual({ code: "ROCE_MTU_LOW", severity: "warning", subject: "mlx5_0..mlx5_8" });
    expect(found.map((c) => c.code)).not.toContain("MTU_MISMATCH");
    const [f] = analyzeText("x", text).findings.filter((x) => x.code === "ROCE_MTU_LOW");
    expect(f?.message).toContain("active MTU of at most 1024");
    expect(f?.message).not.toContain("netdev MTU");
  });

  test("one port at 1024 among 4096 ones is MTU_MISMATCH's, not ROCE_MTU_LOW", () => {
    const text = capture("ibv_devinfo", "a100-roce");
    const lines = text.split("\n");
    const at = lines.findIndex((l, i) => i > 60 && /active_mtu:\s+4096 \(5\)/.test(l));
    lines[at] = lines[at]!.replace("4096 (5)", "1024 (3)");
    const found = codes(lines.join("\n")).map((c) => c.code);
    expect(found).toContain("MTU_MISMATCH");
    expect(found).not.toContain("ROCE_MTU_LOW");
  });
});

/**
 * A port whose `link_layer:` names neither InfiniBand nor Ethernet: Intel's Xeon Phi verbs printed `SCIF` for its scif0
 * device (shape seen in a mailing list's HTML archive, index-file 43748768116; rdma-core's own devinfo.c prints only
 * InfiniBand, Ethernet or Unknown, `link_layer_str`). Own GUIDs and LIDs.
 */
describe("ibv_devinfo: a link layer that is neither InfiniBand nor Ethernet", () => {
  const port = (state: string, layer: string, smLid: number) =>
    [
      "\t\tport:\t1",
      `\t\t\tstate:\t\t\t${state}`,
      "\t\t\tmax_mtu:\t\t4096 (5)",
      "\t\t\tactive_mtu:\t\t4096 (5)",
      `\t\t\tsm_lid:\t\t\t${smLid}`,
      "\t\t\tport_lid:\t\t7",
      "\t\t\tport_lmc:\t\t0x00",
      `\t\t\tlink_layer:\t\t${layer}`,
    ].join("\n");
  const text = [
    "hca_id:\tmlx4_0",
    "\ttransport:\t\t\tInfiniBand (0)",
    "\tfw_ver:\t\t\t\t2.42.5000",
    "\tphys_port_cnt:\t\t\t1",
    port("PORT_ACTIVE (4)", "InfiniBand", 3),
    "",
    "hca_id:\tscif0",
    "\ttransport:\t\t\tSCIF (2)",
    "\tfw_ver:\t\t\t\t0.0.1",
    "\tphys_port_cnt:\t\t\t1",
    port("PORT_ACTIVE (4)", "SCIF", 1),
  ].join("\n");

  test("is kept as printed, Unknown to the rules; its subnet manager's LID does not make it InfiniBand", () => {
    const d = analyzeText("devinfo.txt", text).data as {
      linkLayer: string;
      devices: { name: string; ports: { linkLayer: string; linkLayerPrinted?: string }[] }[];
    };
    expect(d.devices.map((x) => [x.name, x.ports[0]?.linkLayer, x.ports[0]?.linkLayerPrinted])).toEqual([
      ["mlx4_0", "InfiniBand", undefined],
      ["scif0", "Unknown", "SCIF"],
    ]);
    // The host's link layer is what the ports that name one say.
    expect(d.linkLayer).toBe("InfiniBand");
  });
});
