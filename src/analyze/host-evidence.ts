import type { LinkLayer } from "../inventory/types.js";
import type { IbDevicesReport, IbPortReport } from "../parse/ib-ports.js";

/**
 * Which reading of a host tool's output decided each fact (`data.evidence` of the host-tool kinds), strongest first.
 * A weaker reading only fills a fact the stronger ones left unknown; it never overrides one. Null only when no reading
 * has a value.
 *
 * Port link layer (`ibv_devinfo`, `ibstat`, `ibstatus`):
 * 1. `link_layer_lines`: the port's own `link_layer:` / `Link layer:` line (the kernel's `link_layer` file).
 * 2. `roce_gids`: a GID listed with its RoCE type (`GID[  3]: …, RoCE v2`, ibv_devinfo -v): RoCE GIDs exist only on
 *    Ethernet ports (`gid_attrs/types/N`, https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-class-infiniband).
 * 3. `transport_line`: the device's `transport: iWARP (1)` (ibv_devinfo): iWARP runs over TCP on Ethernet. Its
 *    `InfiniBand (0)` says nothing: rdma-core prints it for RoCE devices as well.
 * 4. `lids`: a non-zero `sm_lid`/`SM lid`, the LID of the port's subnet manager: only an InfiniBand subnet has one; a
 *    RoCE port reads 0 (`ibv_query_port`, https://man7.org/linux/man-pages/man3/ibv_query_port.3.html). The port's own
 *    LID is no proof: Intel's iWARP driver (irdma) reports `port_lid: 1` on Ethernet ports.
 * 5. `no_link_layer_line`: ibv_devinfo went on past a port's `port_lmc:` with no `link_layer:` line, which every
 *    version since libibverbs 1.1.4 prints right after it (rdma-core libibverbs/examples/devinfo.c): an ibv_devinfo
 *    from before RoCE, when verbs knew only InfiniBand ports.
 * `evidence.linkLayer` names the weakest reading any port's link layer rests on.
 */
export type PortLinkEvidence = "link_layer_lines" | "roce_gids" | "transport_line" | "lids" | "no_link_layer_line";

const ORDER: readonly PortLinkEvidence[] = [
  "link_layer_lines",
  "roce_gids",
  "transport_line",
  "lids",
  "no_link_layer_line",
];

export type HostPortsEvidence = {
  /** The lines that named the devices (`hca_id_lines`, `ca_lines`, `ibstatus_blocks`); null when none was named. */
  devices: string | null;
  /** `port_blocks` when any port block was read. */
  ports: "port_blocks" | null;
  linkLayer: PortLinkEvidence | null;
  /** `fw_ver_lines` (`fw_ver:` / `Firmware version:`) when any device printed its firmware. */
  firmware: "fw_ver_lines" | null;
};

const nonZeroLid = (v: string | undefined) => {
  if (v === undefined) return false;
  const n = /^0x[0-9a-f]+$/i.test(v) ? Number.parseInt(v, 16) : Number(v);
  return Number.isFinite(n) && n > 0;
};

/** A port's link layer from the strongest reading that has one, and which reading it was. */
export function portLinkLayer(
  p: IbPortReport,
  transport?: string,
): { value: LinkLayer; decidedBy: PortLinkEvidence | null } {
  // A line that named another link layer (`SCIF`) decided it: Unknown to every reading here, and no LID says otherwise.
  if (p.linkLayer !== "Unknown" || p.linkLayerPrinted) return { value: p.linkLayer, decidedBy: "link_layer_lines" };
  if ((p.gids ?? []).some((g) => g.version !== null)) return { value: "Ethernet", decidedBy: "roce_gids" };
  if (transport?.toLowerCase() === "iwarp") return { value: "Ethernet", decidedBy: "transport_line" };
  if (nonZeroLid(p.smLid)) return { value: "InfiniBand", decidedBy: "lids" };
  if (p.linkLayerUnprinted) return { value: "InfiniBand", decidedBy: "no_link_layer_line" };
  return { value: "Unknown", decidedBy: null };
}

/**
 * The devices with each port's link layer decided from every reading, the link layer of them all (`InfiniBand`,
 * `Ethernet`, `mixed`; null when no port's is known) and the evidence of each fact. Pure.
 */
export function decidePorts<T extends IbDevicesReport>(
  report: T,
  devicesBy: string,
): T & { linkLayer: string | null; evidence: HostPortsEvidence } {
  const used = new Set<PortLinkEvidence>();
  const layers = new Set<LinkLayer>();
  const devices = report.devices.map((d) => ({
    ...d,
    ports: d.ports.map((p) => {
      const decided = portLinkLayer(p, d.transport);
      if (decided.decidedBy) {
        used.add(decided.decidedBy);
        if (decided.value !== "Unknown") layers.add(decided.value);
      }
      return decided.value === p.linkLayer ? p : { ...p, linkLayer: decided.value };
    }),
  }));
  const weakest = [...ORDER].reverse().find((e) => used.has(e)) ?? null;
  return {
    ...report,
    devices,
    linkLayer: layers.size === 0 ? null : layers.size === 1 ? [...layers][0]! : "mixed",
    evidence: {
      devices: devices.length > 0 ? devicesBy : null,
      ports: devices.some((d) => d.ports.length > 0) ? "port_blocks" : null,
      linkLayer: weakest,
      firmware: devices.some((d) => d.fwVer !== null) ? "fw_ver_lines" : null,
    },
  };
}
