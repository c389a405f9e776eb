import { describe, expect, test } from "vitest";
import { analyzeText, analyzeTranscript } from "./index.js";

/*
 * Host tools' facts with the evidence that decided each. Shapes: ibstat blocks with `Base lid`/`SM lid` before `Link
 * layer` (https://github.com/linux-rdma/rdma-core/pull/847), an ibstat block cut before its `Link layer` line by an
 * `ibpanic` (https://github.com/leptonai/gpud/pull/752), ibv_devinfo with `sm_lid`/`port_lid`/`link_layer`
 * (https://github.com/deepseek-ai/DeepEP/issues/60), ibv_devinfo -v GIDs with their RoCE type (rdma-core
 * libibverbs/examples/devinfo.c), ibdev2netdev (https://github.com/imbue-ai/cluster-health/issues/4). Device names,
 * GUIDs, firmware and addresses are this project's own.
 */
const data = (text: string[], kind?: string) => {
  const e = analyzeText("capture.txt", `${text.join("\n")}\n`, {}, kind ? { kind } : {});
  return e.data as Record<string, unknown> & { evidence: Record<string, string | null> };
};
const portsOf = (d: Record<string, unknown>) =>
  (d.devices as { name: string; ports: { port: number; linkLayer: string }[] }[]).flatMap((x) =>
    x.ports.map((p) => `${x.name}/${p.port}:${p.linkLayer}`),
  );

const ibstatPort = (name: string, lid: string, sm: string, layer: string | null) => [
  `CA '${name}'`,
  "\tCA type: MT4123",
  "\tNumber of ports: 1",
  "\tFirmware version: 20.39.1002",
  "\tHardware version: 0",
  "\tNode GUID: 0x1070fd0300a1b2c4",
  "\tPort 1:",
  "\t\tState: Active",
  "\t\tPhysical state: LinkUp",
  "\t\tRate: 200",
  `\t\tBase lid: ${lid}`,
  "\t\tLMC: 0",
  `\t\tSM lid: ${sm}`,
  "\t\tCapability mask: 0x2651e848",
  ...(layer ? [`\t\tLink layer: ${layer}`] : []),
];

describe("ibstat: the link layer from its own line, else from the LIDs an InfiniBand subnet assigns", () => {
  test("every port with its Link layer line", () => {
    const d = data([...ibstatPort("mlx5_0", "12", "1", "InfiniBand"), ...ibstatPort("mlx5_1", "0", "0", "Ethernet")]);
    expect(portsOf(d)).toEqual(["mlx5_0/1:InfiniBand", "mlx5_1/1:Ethernet"]);
    expect(d.linkLayer).toBe("mixed");
    expect(d.evidence).toEqual({
      devices: "ca_lines",
      ports: "port_blocks",
      linkLayer: "link_layer_lines",
      firmware: "fw_ver_lines",
    });
  });

  test("a block cut before its Link layer line: a subnet manager's LID says InfiniBand; zero LIDs leave it unknown", () => {
    const d = data([
      ...ibstatPort("mlx5_2", "13305", "1", null),
      "ibpanic: [1823] main: stat of IB device 'mlx5_3' failed: No such file or directory",
    ]);
    expect([portsOf(d), d.linkLayer, d.evidence.linkLayer]).toEqual([["mlx5_2/1:InfiniBand"], "InfiniBand", "lids"]);
    const roce = data(ibstatPort("mlx5_4", "0", "0", null));
    expect([portsOf(roce), roce.linkLayer, roce.evidence.linkLayer]).toEqual([["mlx5_4/1:Unknown"], null, null]);
  });

  test("the port's own line is never overridden by a weaker reading that disagrees", () => {
    // A LID on an Ethernet port is impossible; the link_layer line is the kernel's own word and stands.
    const d = data(ibstatPort("mlx5_5", "7", "1", "Ethernet"));
    expect([portsOf(d), d.evidence.linkLayer]).toEqual([["mlx5_5/1:Ethernet"], "link_layer_lines"]);
  });
});

describe("ibv_devinfo: link_layer line, else RoCE-typed GIDs, else LIDs", () => {
  const head = (name: string) => [
    `hca_id: ${name}`,
    "\ttransport:\t\t\tInfiniBand (0)",
    "\tfw_ver:\t\t\t\t28.39.2048",
    "\tnode_guid:\t\t\t1070:fd03:00c4:5e10",
    "\tvendor_id:\t\t\t0x02c9",
    "\tvendor_part_id:\t\t\t4129",
    "\tphys_port_cnt:\t\t\t1",
    "\t\tport:\t1",
    "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
    "\t\t\tmax_mtu:\t\t4096 (5)",
    "\t\t\tactive_mtu:\t\t4096 (5)",
  ];
  test("a -v block whose link_layer line was lost: its RoCE v2 GIDs say Ethernet", () => {
    const d = data(
      [
        ...head("mlx5_0"),
        "\t\t\tsm_lid:\t\t\t0",
        "\t\t\tport_lid:\t\t0",
        "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:1270:fdff:fec4:5e10, RoCE v1",
        "\t\t\tGID[  3]:\t\t0000:0000:0000:0000:0000:ffff:0a0b:0c0d, RoCE v2",
      ],
      "ibv_devinfo",
    );
    expect([portsOf(d), d.linkLayer, d.evidence.linkLayer, d.evidence.devices]).toEqual([
      ["mlx5_0/1:Ethernet"],
      "Ethernet",
      "roce_gids",
      "hca_id_lines",
    ]);
  });

  test("an iWARP port's own LID proves nothing (irdma reports port_lid 1 on Ethernet); its transport line does", () => {
    const d = data([...head("irdma1"), "\t\t\tsm_lid:\t\t\t0", "\t\t\tport_lid:\t\t1"], "ibv_devinfo");
    expect([portsOf(d), d.linkLayer, d.evidence.linkLayer]).toEqual([["irdma1/1:Unknown"], null, null]);
    const iwarp = data(
      [...head("irdma1"), "\t\t\tsm_lid:\t\t\t0", "\t\t\tport_lid:\t\t1"].map((l) =>
        l.replace("InfiniBand (0)", "iWARP (1)"),
      ),
      "ibv_devinfo",
    );
    expect([portsOf(iwarp), iwarp.linkLayer, iwarp.evidence.linkLayer]).toEqual([
      ["irdma1/1:Ethernet"],
      "Ethernet",
      "transport_line",
    ]);
  });

  test("an InfiniBand port's subnet manager LID; the weakest reading any port rests on is named", () => {
    const d = data([
      ...head("mlx5_1"),
      "\t\t\tsm_lid:\t\t\t1",
      "\t\t\tport_lid:\t\t41",
      "\t\t\tlink_layer:\t\tInfiniBand",
      "",
      ...head("mlx5_2"),
      "\t\t\tsm_lid:\t\t\t1",
      "\t\t\tport_lid:\t\t42",
    ]);
    expect([portsOf(d), d.linkLayer, d.evidence.linkLayer]).toEqual([
      ["mlx5_1/1:InfiniBand", "mlx5_2/1:InfiniBand"],
      "InfiniBand",
      "lids",
    ]);
  });
});

describe("ibdev2netdev, ofed_info, nvidia-smi: which line said it", () => {
  test("ibdev2netdev mappings, and `rdma link` where ibdev2netdev is missing", () => {
    const d = data(["mlx5_0 port 1 ==> ibp26s0 (Down)", "mlx5_1 port 1 ==> enp27s0f0np0 (Up)"]);
    expect(d.evidence).toEqual({ devices: "mapping_lines", up: "netdev_state", portState: null });
    // iproute2 `rdma link show` (https://man7.org/linux/man-pages/man8/rdma-link.8.html).
    const link = data([
      "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0",
      "link mlx5_1/1 state DOWN physical_state DISABLED netdev ens1f1np1",
    ]);
    expect(link.evidence).toEqual({ devices: "rdma_link_lines", up: "port_state", portState: "port_state_words" });
  });

  test("ofed_info: the version line, or the line that says there is none", () => {
    expect(data(["MLNX_OFED_LINUX-24.10-1.1.4.0:"]).evidence).toEqual({
      flavor: "version_line",
      version: "version_line",
    });
    const none = data(["bash: ofed_info: command not found"], "ofed_info");
    expect([none.version, none.evidence.version]).toEqual([null, "absence_line"]);
  });

  test("nvidia-smi: versions from the header line; XML `Not Found` is a null the element said", () => {
    const table = data([
      "+---------------------------------------------------------------------------------------+",
      "| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |",
      "|-----------------------------------------+----------------------+----------------------+",
      "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
      "|=========================================+======================+======================|",
      "|   0  NVIDIA H100 80GB HBM3          On  | 00000000:1B:00.0 Off |                    0 |",
      "| N/A   31C    P0              70W / 700W |      4MiB / 81559MiB |      0%      Default |",
      "+-----------------------------------------+----------------------+----------------------+",
    ]);
    expect(table.evidence).toEqual({ driverVersion: "header_line", cudaVersion: "header_line", gpus: "gpu_rows" });
    // nvidia-smi -q -x on a node without the CUDA user-space library prints `<cuda_version>Not Found</cuda_version>`.
    const xml = data([
      '<?xml version="1.0" ?>',
      "<nvidia_smi_log>",
      "\t<driver_version>550.54.15</driver_version>",
      "\t<cuda_version>Not Found</cuda_version>",
      "\t<attached_gpus>0</attached_gpus>",
      "</nvidia_smi_log>",
    ]);
    expect([xml.cudaVersion, xml.evidence]).toEqual([
      null,
      { driverVersion: "driver_version_element", cudaVersion: "cuda_version_element", gpus: null },
    ]);
  });
});

// rdma-core libibverbs/examples/devinfo.c prints `link_layer:` right after `port_lmc:` in every port block
// (https://github.com/linux-rdma/rdma-core); an ibv_devinfo from before libibverbs 1.1.4 printed none, when verbs knew
// only InfiniBand. Shape seen in a 2010 users' list archive committed to a public repository (index-file 44000474651).
describe("an ibv_devinfo that prints no link layer", () => {
  const port = (n: number, state: string, sm: string, more: string[]) => [
    `\t\tport:\t${n}`,
    `\t\t\tstate:\t\t\t${state}`,
    "\t\t\tmax_mtu:\t\t2048 (4)",
    `\t\t\tsm_lid:\t\t\t${sm}`,
    "\t\t\tport_lmc:\t\t0x00",
    ...more,
  ];
  const head = ["hca_id:\tmlx4_0", "\ttransport:\t\t\tInfiniBand (0)", "\tphys_port_cnt:\t\t\t2"];

  test("ports whose blocks go on past `port_lmc:` are InfiniBand, a down one with no LID too", () => {
    const text = [
      ...head,
      ...port(1, "PORT_ACTIVE (4)", "3", ["\t\t\tmax_msg_sz:\t\t0x40000000"]),
      ...port(2, "PORT_DOWN (1)", "0", ["\t\t\tmax_msg_sz:\t\t0x40000000"]),
    ].join("\n");
    const [entry] = analyzeTranscript("devinfo.txt", text);
    const d = entry!.data as { linkLayer: string; evidence: { linkLayer: string } };
    expect(d.linkLayer).toBe("InfiniBand");
    expect(d.evidence.linkLayer).toBe("no_link_layer_line");
  });

  test("a block cut right after `port_lmc:` says nothing (the line may be the next one)", () => {
    const text = [...head, ...port(1, "PORT_DOWN (1)", "0", [])].join("\n");
    const [entry] = analyzeTranscript("devinfo.txt", text);
    expect((entry!.data as { linkLayer: string | null }).linkLayer).toBeNull();
  });
});
