import { describe, expect, test } from "vitest";
import { analyzeTranscript } from "./index.js";
import { webCharactersOff } from "./web-characters.js";

/**
 * What copying a capture out of a web page does to it, and that `analyze` reads the capture the tool printed anyway.
 * The captures are this test's own (hosts, GUIDs, numbers); the page shapes are noted where they were seen.
 */
const only = (text: string) => {
  const entries = analyzeTranscript("paste.txt", text);
  expect(entries.length).toBe(1);
  return entries[0]!;
};
const ports = (text: string) =>
  (
    (only(text).data as { devices: { name: string; ports: { port: number; state: string }[] }[] }).devices ?? []
  ).flatMap((d) => d.ports.map((p) => `${d.name}/${p.port}:${p.state}`));

describe("a page's characters go back to the tool's", () => {
  test("no-break spaces, typographic quotes, zero-width spaces and a byte-order mark", () => {
    const page = "\ufeffCA \u2018mlx5_0\u2019\n\u00a0\u00a0Port\u00a01:\n\u00a0\u00a0\u00a0\u00a0State:\u00a0Active\n";
    expect(webCharactersOff(page).text).toBe("CA 'mlx5_0'\n  Port 1:\n    State: Active\n");
    expect(webCharactersOff("mlx5\u200b_0").text).toBe("mlx5_0");
  });

  test("markup left escaped is decoded only where an entity proves the escaping, never in the tool's own XML", () => {
    expect(webCharactersOff("mlx5_0 port 1 ==&gt; ib0 (Up)").text).toBe("mlx5_0 port 1 ==> ib0 (Up)");
    const xml = '<?xml version="1.0" ?>\n<nvidia_smi_log><product_name>A &amp; B &lt;x&gt;</product_name>';
    expect(webCharactersOff(xml).changed).toBe(false);
    expect(webCharactersOff("AT&T &amp; co").changed).toBe(false);
  });

  test("an ibdev2netdev pasted from an escaped page reads as the tool printed it", () => {
    const d = only("mlx5_0 port 1 ==&gt; ens1f0np0 (Up)\nmlx5_1 port 1 ==&gt; ens1f1np1 (Down)\n").data as {
      mappings: { device: string; up: boolean }[];
    };
    expect(d.mappings.map((m) => `${m.device}:${m.up}`)).toEqual(["mlx5_0:true", "mlx5_1:false"]);
  });
});

// A rendered note that set some lines of an `ibdev2netdev -v` in red (`<font color="red">…</font>`, fewer lines than a
// page's whole markup; shape seen in Chinese notes committed to a public repository, index-file 3793101177). Own names.
test("an HTML element opened and closed on one line comes off, its text kept", () => {
  const text = [
    "> 0000:3b:00.0 mlx5_0 (MT4119 - MCX555A-ECAT) CX555A - ConnectX-5 QSFP28 fw 16.28.2006 port 1 (ACTIVE) ==> ib0 (Up)",
    ">",
    '> <font color="red">0000:3b:00.1 mlx5_2 (MT4120 - NA) fw 16.28.2006 port 1 (DOWN ) ==> ib2 (Down)</font>',
    ">",
    '> <font color="red">0000:3b:00.2 mlx5_3 (MT4120 - NA) fw 16.28.2006 port 1 (DOWN ) ==> ib3 (Down)</font>',
  ].join("\n");
  const [e] = analyzeTranscript("notes.md", text);
  const mappings = (e?.data as { mappings: { device: string; up: boolean }[] } | undefined)?.mappings ?? [];
  expect(mappings.map((m) => `${m.device}:${m.up}`)).toEqual(["mlx5_0:true", "mlx5_2:false", "mlx5_3:false"]);
  // A tool's own angle brackets are no element (NCCL's `<0>`, a show_gids netdev).
  expect(webCharactersOff("eth0:10.1.2.3<0>").text).toBe("eth0:10.1.2.3<0>");
});

// A system-info doc's HTML table of commands, one of its cells the output of `ofed_info -s` (shape seen in a
// repository's docs, index-file 9344345572). Own version and layout.
test("a table cell opened and closed on one line holding a tool's output: the output is read", () => {
  const text = [
    "<table>",
    "  <tbody>",
    "    <tr>",
    "      <td>ofed_version</td>",
    "      <td>ofed_info -s</td>",
    "      <td>the version of the installed OFED</td>",
    "      <td>MLNX_OFED_LINUX-5.8-3.0.7.0:</td>",
    "    </tr>",
    "  </tbody>",
    "</table>",
  ].join("\n");
  const e = only(text);
  expect(e.kind).toBe("ofed_info");
  expect(e.data).toMatchObject({ version: "5.8-3.0.7.0", flavor: "MLNX_OFED" });
});

describe("a page's layout comes off", () => {
  // Each line its own paragraph: a blank line after every line.
  test("a double-spaced ibstat keeps its own blank line between devices", () => {
    const ibstat = ["CA 'mlx5_0'", "\tPort 1:", "\t\tState: Active", "\t\tRate: 200", "\t\tLink layer: InfiniBand"];
    const two = [...ibstat, "", ...ibstat.map((l) => l.replace("mlx5_0", "mlx5_1"))].join("\n");
    expect(ports(two.replace(/\n/g, "\n\n"))).toEqual(["mlx5_0/1:ACTIVE", "mlx5_1/1:ACTIVE"]);
  });

  // A documentation page flattened onto one line after its prose (shape seen in the Japanese edition of a vendor's
  // InfiniBand guide, https://access.redhat.com/documentation/ja-jp/red_hat_enterprise_linux/9/html/configuring_infiniband_and_rdma_networks/testing-infiniband-networks_configuring-infiniband-and-rdma-networks).
  test("an ibv_devinfo flattened onto one line is cut before each field again", () => {
    const flat =
      "デバイス情報を表示します。# ibv_devinfo -d mlx5_2 hca_id: mlx5_2 transport: InfiniBand (0) fw_ver: 28.39.1002 node_guid: a088:c203:0044:1a10 phys_port_cnt: 1 port: 1 state: PORT_ACTIVE (4) max_mtu: 4096 (5) active_mtu: 4096 (5) sm_lid: 1 port_lid: 12 port_lmc: 0x00 link_layer: InfiniBand";
    expect(ports(flat)).toEqual(["mlx5_2/1:ACTIVE"]);
  });

  // A paste site's own text around a capture pasted as a Markdown list (shape seen at https://pastebin.com/35T8N5t8).
  test("a list's bullets come off the run of lines that carries them, amid a paste site's own lines", () => {
    const devinfo = ["hca_id: mlx5_3", "transport: InfiniBand (0)", "fw_ver: 20.41.1000", "phys_port_cnt: 1"];
    const port = [
      "port: 1",
      "state: PORT_DOWN (1)",
      "max_mtu: 4096 (5)",
      "active_mtu: 4096 (5)",
      "link_layer: Ethernet",
    ];
    const site = ["Advertisement", "Not a member yet?", "Sign Up,", "it unlocks many features!"];
    const text = [...site, ...[...devinfo, ...port].map((l) => `- ${l}`), ...site].join("\n");
    expect(ports(text)).toEqual(["mlx5_3/1:DOWN"]);
  });

  // A capture quoted in a review as a diff's added lines (shape seen in
  // https://github.com/GoogleCloudPlatform/ai-infra-cluster-provisioning/pull/376; this test's own numbers).
  test("a diff's `+` comes off, nvidia-smi's own `+---+` borders stay", () => {
    const ofed = only("```diff\n+$ ofed_info -s\n+MLNX_OFED_LINUX-24.04-0.7.0.0:\n+\n+ok\n```\n");
    expect((ofed.data as { version: string }).version).toBe("24.04-0.7.0.0");
    expect(ofed.wrappers?.removed).toContain("diff_added");
  });

  // A rendered table copied as text (shape seen in https://github.com/microsoft/mscclpp/pull/736): rows without
  // outer bars, a `-- | --` rule under the first row, and the header's `#` escaped for Markdown.
  test("a table without outer bars under an escaped `\\#` header reads as nccl-tests rows", () => {
    const row = (size: number, busbw: number) =>
      `${size} | ${size / 2} | half | sum | -1 | 5.1 | ${(busbw / 1.75).toFixed(2)} | ${busbw} | 0 | 5.1 | ${(busbw / 1.75).toFixed(2)} | ${busbw} | 0`;
    const text = [
      "\\#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
      row(1024, 0.35),
      "-- | -- | -- | -- | -- | -- | -- | -- | -- | -- | -- | -- | --",
      row(2048, 0.65),
      row(4096, 1.38),
    ].join("\n");
    const d = only(text).data as { rows: unknown[]; peak: { busbw: number } };
    expect([d.rows.length, d.peak.busbw]).toEqual([3, 1.38]);
  });

  // An editor or terminal that turned each run of spaces into one tab: the rows' first column is a number followed by
  // a tab, as cat -n's prefix is, but the numbers do not count up one by one.
  test("nccl-tests rows whose column runs became tabs are rows, not cat -n lines", () => {
    const rows = [
      "\t1048576\t16384\tfloat\tnone\t-1\t88.10\t11.90\t11.16\t0\t88.10\t11.90\t11.16\tN/A",
      "\t16777216\t262144\tfloat\tnone\t-1\t460.2\t36.46\t34.18\t0\t460.2\t36.46\t34.18\tN/A",
      "\t268435456\t4194304\tfloat\tnone\t-1\t5520.7\t48.62\t45.58\t0\t5520.7\t48.62\t45.58\tN/A",
    ].join("\n");
    const entry = only(rows);
    expect(entry.kind).toBe("nccl_tests");
    expect((entry.data as { rows: unknown[]; peak: { busbw: number } }).peak.busbw).toBe(45.58);
  });
});

describe("a page that numbers or flattens a capture", () => {
  // pastebin's numbered view copied as text (https://pastebin.com/aScsNiQH): the site's own lines above, then every
  // line of the paste behind a right-aligned number and a dot.
  test("a paste site's numbered view: the numbers come off the run that counts up, the site's lines stay", () => {
    const body = [
      '<?xml version="1.0" ?>',
      '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">',
      "<nvidia_smi_log>",
      "<driver_version>550.127.05</driver_version>",
      "<cuda_version>12.4</cuda_version>",
      "<attached_gpus>1</attached_gpus>",
      '<gpu id="00000000:41:00.0">',
      "<product_name>NVIDIA RTX A4000</product_name>",
      "<pci>",
      "<pci_bus_id>00000000:41:00.0</pci_bus_id>",
      "</pci>",
      "<fb_memory_usage>",
      "<total>16376 MiB</total>",
      "</fb_memory_usage>",
      "</gpu>",
      "</nvidia_smi_log>",
    ];
    const padded = [...body, ...Array.from({ length: 6 }, () => "")];
    const page = [
      "Untitled",
      "a guest",
      "text 71.34 KB | None | 0 0",
      ...padded.map((l, i) => `${String(i + 1).padStart(3)}. ${l}`.trimEnd()),
    ].join("\n");
    const e = only(page);
    expect(e.kind).toBe("nvidia_smi_xml");
    expect(e.wrappers?.removed).toContain("numbered_view");
    expect((e.data as { driverVersion: string }).driverVersion).toBe("550.127.05");
  });

  test("a short numbered list of steps is no viewer's numbering", () => {
    const steps = ["1. install the driver", "2. run ibstat", "3. check the rate"].join("\n");
    expect(analyzeTranscript("steps.md", steps)[0]?.wrappers?.removed ?? []).not.toContain("numbered_view");
  });

  // `ibdev2netdev -v | grep …` with its line breaks lost on a vendor's page
  // (https://docs.nvidia.com/networking/display/MLNXOFEDv492240/Downloading+Mellanox+OFED).
  test("ibdev2netdev -v flattened onto one line after a prompt: one mapping per device again", () => {
    const map = (pci: string, dev: string, state: string, netdev: string, up: string) =>
      `${pci} ${dev} (MT4119 - MCX556A-EDAT) CX556A - ConnectX-5 QSFP28 fw 16.35.2000 port 1 (${state}) ==> ${netdev} (${up})`;
    const line = [
      "[root@gpu-node-3 ~]# ibdev2netdev -v | grep -i MCX556A",
      map("0000:3b:00.0", "mlx5_2", "ACTIVE", "ens2f0", "Up"),
      map("0000:3b:00.1", "mlx5_3", "DOWN ", "ens2f1", "Down"),
      map("0000:af:00.0", "mlx5_4", "ACTIVE", "ens6f0", "Up"),
    ].join(" ");
    const d = only(`Example:\n\n${line}\n`).data as { mappings: { device: string; netdev: string; up: boolean }[] };
    expect(d.mappings.map((m) => `${m.device}=${m.netdev}:${m.up}`)).toEqual([
      "mlx5_2=ens2f0:true",
      "mlx5_3=ens2f1:false",
      "mlx5_4=ens6f0:true",
    ]);
  });
});

describe("a capture copied out of a page's HTML source", () => {
  // A highlighter's `<span class="line"><span>…</span></span>` around each line of a code block, its entities left
  // (`&#x3C;0>`), shape seen in a blog's built page committed to a public repository (index-file 26484559315).
  test("a highlighter's spans come off every line, and the entities they leave are the tool's characters", () => {
    const rows = [
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 32 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
      "#",
      "# Using devices",
      "#  Rank  0 Group  0 Pid  7310 on lab-ws device  0 [0x01] NVIDIA GeForce RTX 3060",
      "kr-ws:7310:7310 [0] NCCL INFO Bootstrap : Using eth0:172.29.84.17&#x3C;0>",
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
      "           8             2     float     sum      -1    12.71    0.00    0.00      0     0.15    0.05    0.00      0",
      "          16             4     float     sum      -1    12.40    0.00    0.00      0     0.15    0.11    0.00      0",
      "          32             8     float     sum      -1    12.52    0.00    0.00      0     0.15    0.21    0.00      0",
      "# Out of bounds values : 0 OK",
      "# Avg bus bandwidth    : 0 ",
    ];
    const page = [
      '<div class="language- line-numbers-mode" data-highlighter="shiki"><pre class="shiki"><code><span class="line"><span>./build/all_reduce_perf -b 8 -e 32 -f 2 -g 1</span></span>',
      ...rows.map((l) => `<span class="line"><span>${l}</span></span>`),
      "</code></pre></div>",
    ].join("\n");
    const entries = analyzeTranscript("page.html", page);
    const tests = entries.find((e) => e.kind === "nccl_tests")!;
    expect(tests.data).toMatchObject({ collective: "all_reduce", nranks: 1, avgBusBw: 0 });
    expect((tests.data as { rows: unknown[] }).rows).toHaveLength(3);
    expect(webCharactersOff(page).text).not.toContain("<span");
  });

  // A mail archive's HTML: a `<br>` line after each line, `&nbsp;` for the indentation, `<p>` before some (shape seen in
  // a users' list archive committed to a public repository, index-file 44000474651).
  test("a mail archive's `<br>` lines and `<p>` come off, and ibv_devinfo's ports are read", () => {
    const lines = [
      "hca_id:\tmlx4_0",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;transport:\t\t\tInfiniBand (0)",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;fw_ver:\t\t\t\t2.7.000",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;phys_port_cnt:\t\t\t2",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;port:\t1",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;state:\t\t\tPORT_ACTIVE (4)",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;sm_lid:\t\t\t3",
      "<p>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;port:\t2",
      "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;state:\t\t\tPORT_DOWN (1)",
    ];
    const page = ['<!-- body="start" -->', "<p># ibv_devinfo -v", ...lines].flatMap((l) => [l, "<br>"]).join("\n");
    expect(ports(page)).toEqual(["mlx4_0/1:ACTIVE", "mlx4_0/2:DOWN"]);
  });

  test("a tool's own XML keeps every tag", () => {
    const xml =
      '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<gpu id="00000000:3A:00.0">\n<pci>\n<pci_bus_id>00000000:3A:00.0</pci_bus_id>\n</pci>\n</gpu>\n</nvidia_smi_log>\n';
    expect(webCharactersOff(xml).text).toBe(xml);
  });
});

// show_gids rewritten as a Markdown table, its empty IPv4 cells blank (shape seen in a README committed to a public
// repository, index-file 52697251110). Own devices and GIDs.
test("show_gids as a Markdown table: a row whose IPv4 cell is empty is read with no address", () => {
  const page = [
    "$ show_gids",
    "| DEV | PORT | INDEX | GID | IPv4 | VER | DEV |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    "| rocep65s0f0 | 1 | 0 | fe80:0000:0000:0000:5aa2:e1ff:fe07:0c1e |  | v1 | enp65s0f0np0 |",
    "| rocep65s0f0 | 1 | 1 | fe80:0000:0000:0000:5aa2:e1ff:fe07:0c1e |  | v2 | enp65s0f0np0 |",
    "| rocep65s0f0 | 1 | 3 | 0000:0000:0000:0000:0000:ffff:ac10:0565 | 172.16.5.101 | v2 | enp65s0f0np0 |",
    "n_gids_found=3",
  ].join("\n");
  const gids = (only(page).data as { gids: { index: number; ipv4: string | null; netdev: string }[] }).gids;
  expect(gids.map((g) => `${g.index}:${g.ipv4}:${g.netdev}`)).toEqual([
    "0:null:enp65s0f0np0",
    "1:null:enp65s0f0np0",
    "3:172.16.5.101:enp65s0f0np0",
  ]);
});

// Markdown's `\_` in a writer's prose (`NCCL all\_reduce\_perf test`, shape seen at
// https://awstip.com/cilium-support-for-efa-drivers-in-eks-249987d043eb): the name as typed.
test("a backslash before an underscore is Markdown's, not the text's", () => {
  expect(webCharactersOff("an NCCL all\\_reduce\\_perf test with NCCL\\_IB\\_HCA").text).toBe(
    "an NCCL all_reduce_perf test with NCCL_IB_HCA",
  );
});
