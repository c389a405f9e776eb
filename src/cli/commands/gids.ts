import { readGidTable } from "../../inventory/gid-table.js";
import { GIDS_REPORT } from "../../report/kinds/gids.js";
import { renderReport } from "../../report/registry.js";
import { OUTPUT_OPTION, SOURCE_OPTIONS } from "../shared-options.js";
import { readerFromFlags } from "../source.js";
import { type CommandSpec, str, UsageError } from "../spec.js";

export const command: CommandSpec = {
  name: "gids",
  summary: "Print the RoCE/IB GID table like show_gids, straight from sysfs",
  usage: "kube-rdma gids [DEVICE…] [--root DIR | --snapshot FILE | --example NAME] [-o text|json|yaml]",
  description: `
Reads /sys/class/infiniband/*/ports/*/gids/* and prints the same table as Mellanox's show_gids (same columns, tabs,
header and n_gids_found=N footer; all-zero and bare fe80:: slots skipped), without needing OFED's scripts. Devices
come in natural order (mlx5_2 before mlx5_10), ports and indices in numeric order. Name devices to show only those,
like \`show_gids mlx5_1\`.

Read the table: each address of a netdev gives two rows, RoCE v1 and v2. NCCL on RoCE wants the index of the v2
row with an IPv4 address (VER v2, IPv4 column set) — and the same index on every data NIC, else one
NCCL_IB_GID_INDEX cannot serve them all (\`kube-rdma verify\` checks that).

Sources: the live host by default; --root DIR reads a host mounted at DIR (gids reads files only and never runs
a command; for other commands a --root tree may hold command captures in DIR/.kube-rdma/commands.json, see
\`kube-rdma collect --help\`); --snapshot replays a \`kube-rdma collect\` file; --example uses an embedded example
host (\`--list-examples\`).

-o json prints an array of {device, port, index, gid, ipv4, version, netdev} (ipv4/version/netdev may be null).

Exit codes: 0 the table; 1 a partial table (a GID that could not be read, named on stderr) or no RDMA device at all
(an empty table, and why on stderr: mlx5_ib not loaded, or the host's /sys not mounted into this pod); 2 nothing
could be read, or a named device does not exist.`,
  options: [OUTPUT_OPTION, ...SOURCE_OPTIONS],
  examples: [
    ["kube-rdma gids", "the GID table of this host"],
    ["kube-rdma gids mlx5_1 mlx5_2", "only two devices, like `show_gids mlx5_1`"],
    [
      "kube-rdma gids --example a100-8x-roce",
      "the A100 RoCE example node's table: index 3 is RoCE v2 + IPv4 on every NIC",
    ],
    ["kube-rdma gids --root /host -o json", "from a DaemonSet pod with the host mounted at /host, as JSON"],
  ],
  async run({ values, positionals, io }) {
    const devices = positionals.flatMap((p) => p.split(/[\s,]+/)).filter(Boolean);
    const reader = await readerFromFlags(values);
    const { rows, problems, missing, available } = readGidTable(reader, devices);
    if (missing.length) {
      throw new UsageError(
        `no RDMA device ${missing.join(", ")} on ${reader.description}.`,
        available.length ? `Devices here: ${available.join(" ")}.` : "This host shows no RDMA devices at all.",
      );
    }
    for (const p of problems) io.stderr(`kube-rdma gids: ${p.message}${p.path ? ` (${p.path})` : ""}\n`);
    if (available.length === 0 && problems.length === 0) {
      io.stderr(
        `kube-rdma gids: ${reader.description} has no RDMA devices (/sys/class/infiniband is empty or missing). ` +
          "Is mlx5_ib loaded? In a pod, mount the host's /sys and pass --root.\n",
      );
    }
    io.stdout(await renderReport(GIDS_REPORT, rows, str(values, "output") ?? "text"));
    // Rows with problems beside them are a partial table: not a clean answer (exit 1), never a silent one. A host
    // without any RDMA device is a finding about the host (verify's NO_RDMA_HCA): an empty table, exit 1.
    if (problems.length > 0) return rows.length === 0 ? 2 : 1;
    return available.length === 0 ? 1 : 0;
  },
};
