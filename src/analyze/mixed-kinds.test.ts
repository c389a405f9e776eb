import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES } from "./corpus.js";
import { analyzeTranscript } from "./index.js";

// nccl-tests run with NCCL_DEBUG=INFO behind mpirun --tag-output: NCCL INFO lines between the test's header lines
// (shape as in https://github.com/NVIDIA/nccl-tests/issues, noted in fixtures/captures/corpus.json).
const FILE = "nccl_log/tag-output-2.27-gdrdma-shared.txt";

describe("a file that is both an nccl-tests output and an NCCL log", () => {
  test("gives one entry per kind: the test results and the NCCL verdict, with the Open MPI ranks kept", () => {
    const entries = analyzeTranscript(FILE, readFileSync(join(CAPTURES, FILE), "utf8"));
    expect(entries.map((e) => e.kind)).toEqual(["nccl_tests", "nccl_log"]);
    expect(entries[1]?.data).not.toBeNull();
    expect(entries[0]?.wrappers?.removed).toEqual(["tag_output"]);
    expect(entries[0]?.wrappers?.ranks?.length).toBeGreaterThan(1);
  });
});

// An issue that shows the host's `ibstatus`, then the NCCL lines of its run, no command typed between them (shape seen
// at https://github.com/NVIDIA/nccl/issues/451); own device, GID and addresses.
describe("a host tool's output and an NCCL log side by side", () => {
  const text = [
    "The node has this RDMA device:",
    "",
    "Infiniband device 'mlx5_bond_0' port 1 status:",
    "        default gid:     fe80:0000:0000:0000:0e42:a1ff:fe2b:7c10",
    "        base lid:        0x0",
    "        sm lid:          0x0",
    "        state:           4: ACTIVE",
    "        phys state:      5: LinkUp",
    "        rate:            25 Gb/sec (1X EDR)",
    "        link_layer:      Ethernet",
    "",
    "and NCCL inside the container prints:",
    "",
    "NCCL INFO NCCL_IB_DISABLE set by environment to 0.",
    "misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed",
    "NCCL INFO NET/IB : No device found.",
    "NCCL INFO NET/Socket : Using [0]bond0:10.30.4.7<0>",
    "NCCL INFO Using network Socket",
  ].join("\n");

  test("gives both entries: the tool's ports, and NCCL's network and verdict", () => {
    const entries = analyzeTranscript("issue.md", text);
    expect(entries.map((e) => e.kind)).toEqual(["ibstat", "nccl_log"]);
    const ports = (entries[0]!.data as { devices: { name: string; ports: { state: string }[] }[] }).devices;
    expect(ports.map((d) => `${d.name}:${d.ports[0]?.state}`)).toEqual(["mlx5_bond_0:ACTIVE"]);
    expect(entries[1]!.data).toMatchObject({ network: "Socket", verdict: "socket" });
  });

  test("the tool's output alone stays one entry", () => {
    const alone = text.split("\n").slice(0, 11).join("\n");
    expect(analyzeTranscript("issue.md", alone).map((e) => e.kind)).toEqual(["ibstat"]);
  });
});

// A runbook's fenced session: `ofed_info -s`, its line, then a mistyped `ibdev_info` and ibv_devinfo's blocks (shape seen
// in a cluster runbook committed to a public repository: index-file 19124581599). Own devices and GUIDs.
describe("two host tools side by side, the command between them one the session does not know", () => {
  const block = (name: string, guid: string) => [
    `hca_id:\t${name}`,
    "\ttransport:\t\t\tInfiniBand (0)",
    "\tfw_ver:\t\t\t\t28.39.1002",
    `\tnode_guid:\t\t\t${guid}`,
    "\tphys_port_cnt:\t\t\t1",
    "\t\tport:\t1",
    "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
    "\t\t\tmax_mtu:\t\t4096 (5)",
    "\t\t\tsm_lid:\t\t\t1",
    "\t\t\tport_lid:\t\t611",
    "\t\t\tlink_layer:\t\tInfiniBand",
    "",
  ];
  const text = [
    "Check the new version is reported",
    "```bash",
    "ofed_info -s",
    "MLNX_OFED_LINUX-23.10-1.1.9.0:",
    "ibdev_info",
    ...block("mlx5_ib0", "0015:5dff:fe33:aa01"),
    ...block("mlx5_ib1", "0015:5dff:fe33:aa02"),
    "```",
  ].join("\n");

  test("gives one entry each: the OFED version, and every port of ibv_devinfo (none lost)", () => {
    const entries = analyzeTranscript("runbook.md", text);
    expect(entries.map((e) => e.kind)).toEqual(["ofed_info", "ibv_devinfo"]);
    expect(entries[0]?.data).toMatchObject({ version: "23.10-1.1.9.0", flavor: "MLNX_OFED" });
    const devices = (entries[1]!.data as { devices: { name: string; ports: { state: string }[] }[] }).devices;
    expect(devices.map((d) => `${d.name}:${d.ports[0]?.state}`)).toEqual(["mlx5_ib0:ACTIVE", "mlx5_ib1:ACTIVE"]);
  });
});
