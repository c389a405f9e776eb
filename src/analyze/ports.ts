import { finding } from "../checks/catalogue.js";
import { compactNames, physStateText, stateText } from "../checks/select.js";
import type { Finding } from "../core/finding.js";
import { naturalCompare } from "../core/natural.js";
import type { IbDeviceReport } from "../parse/ib-ports.js";
import { managementHcaOf, mostCommon, plural, tally } from "./context.js";
import type { AnalyzeContext } from "./types.js";

type PortRef = { device: string; port: number; multiPort: boolean };

const subjectOf = (p: PortRef) => (p.multiPort || p.port !== 1 ? `${p.device}/${p.port}` : p.device);

function stateFindings(devices: readonly IbDeviceReport[]): Finding[] {
  const out: Finding[] = [];
  for (const d of devices) {
    for (const p of d.ports) {
      const subject = subjectOf({ device: d.name, port: p.port, multiPort: d.ports.length > 1 });
      const evidence = portEvidenceOf(d, p);
      if (p.state !== "ACTIVE") {
        out.push(
          finding("PORT_DOWN", subject, {
            ...evidence,
            state: stateText(p.state),
            physState: p.physState ? physStateText(p.physState) : null,
            operstate: null,
          }),
        );
      } else if (p.physState !== undefined && p.physState !== "LinkUp") {
        out.push(finding("PORT_NOT_LINKUP", subject, { ...evidence, physState: physStateText(p.physState) }));
      }
    }
  }
  return out;
}

/** Active ports reporting a value (rate, MTU), and the value most of them share (the larger on a tie). */
type ActiveValues = { ports: (PortRef & { value: number; layer: string })[]; usual: number | null };

function activeValues(
  devices: readonly IbDeviceReport[],
  pick: (p: IbDeviceReport["ports"][number]) => number | undefined,
): ActiveValues {
  const ports = devices.flatMap((d) =>
    d.ports.flatMap((p) => {
      const value = p.state === "ACTIVE" ? pick(p) : undefined;
      if (value === undefined) return [];
      return [{ device: d.name, port: p.port, multiPort: d.ports.length > 1, value, layer: String(p.linkLayer) }];
    }),
  );
  const usual = mostCommon(
    ports.map((p) => p.value),
    (a, b) => Math.max(a, b),
  );
  return { ports, usual };
}

/**
 * Without a node model, the first device is taken for the management NIC when it alone runs at its (lower) rate,
 * or when it is a different HCA model from the rest (the A100 RoCE example node: a 25 Gb/s ConnectX-4 Lx beside ConnectX-6 rails).
 */
function guessManagement(devices: readonly IbDeviceReport[], rates: ActiveValues): string | null {
  const sorted = [...devices].sort((a, b) => naturalCompare(a.name, b.name));
  const first = sorted[0];
  if (!first || devices.length < 3 || rates.usual === null) return null;
  const usual = rates.usual;
  const own = rates.ports.filter((p) => p.device === first.name);
  const slower = own.length > 0 && own.every((p) => p.value < usual);
  const alone = own.every((p) => rates.ports.filter((q) => q.value === p.value).length === own.length);
  const otherModel = firstOfOtherModel(devices) === first.name;
  return slower && (alone || otherModel) ? first.name : null;
}

/** The first device when it is another HCA model than the rest (the example node's ConnectX-4 Lx management NIC). */
function firstOfOtherModel(devices: readonly IbDeviceReport[]): string | null {
  const sorted = [...devices].sort((a, b) => naturalCompare(a.name, b.name));
  const first = sorted[0];
  if (!first?.partId || sorted.length < 3) return null;
  const usual = mostCommon(
    sorted.slice(1).flatMap((d) => (d.partId ? [d.partId] : [])),
    (a) => a,
  );
  return usual !== null && first.partId !== usual ? first.name : null;
}

/**
 * A port slower than most is an error, except the management NIC: named by the node model when given, else
 * guessed as the first device when it alone is slower (the example node's mlx5_0 runs at 25 Gb/s beside 200 Gb/s rails).
 * InfiniBand and Ethernet ports are separate fabrics (a DGX H100's 400 Gb/s NDR rails beside its BlueField-3 Ethernet
 * ports): each is compared with its own kind only.
 */
function rateFindings(
  devices: readonly IbDeviceReport[],
  rates: ActiveValues,
  management: string | null,
  named: boolean,
): Finding[] {
  const layers = [...new Set(rates.ports.map((p) => p.layer))];
  if (layers.length <= 1) return layerRateFindings(devices, rates, management, named);
  return layers.flatMap((layer) => {
    const ports = rates.ports.filter((p) => p.layer === layer);
    const usual = mostCommon(
      ports.map((p) => p.value),
      (a, b) => Math.max(a, b),
    );
    return layerRateFindings(devices, { ports, usual }, management, named);
  });
}

function layerRateFindings(
  devices: readonly IbDeviceReport[],
  rates: ActiveValues,
  management: string | null,
  named: boolean,
): Finding[] {
  const usual = rates.usual;
  if (usual === null) return [];
  const usualCount = rates.ports.filter((p) => p.value === usual).length;
  return rates.ports
    .filter((p) => p.value !== usual)
    .map((p) => {
      const isManagement = p.device === management;
      const d = devices.find((x) => x.name === p.device)!;
      const port = d.ports.find((x) => x.port === p.port)!;
      return finding(
        "RATE_MISMATCH",
        subjectOf(p),
        {
          ...portEvidenceOf(d, port),
          rateGbps: p.value,
          rateText: null,
          usualGbps: usual,
          usualCount,
          ...(isManagement ? { management: named ? ("named" as const) : ("guessed" as const) } : {}),
        },
        isManagement ? "info" : undefined,
      );
    });
}

/** The evidence verify's port findings carry, for a port read from ibv_devinfo / ibstat. */
function portEvidenceOf(d: IbDeviceReport, p: IbDeviceReport["ports"][number]) {
  return {
    hca: d.name,
    port: `${d.name} port ${p.port}`,
    portNumber: p.port,
    netdev: null,
    linkLayer: p.linkLayer as string,
  };
}

/** Active MTUs of the data ports (the management NIC, named or guessed, is left out) should agree. */
function mtuFindings(devices: readonly IbDeviceReport[], management: string | null): Finding[] {
  const mtus = activeValues(
    devices.filter((d) => d.name !== management),
    (p) => p.activeMtu,
  );
  const usual = mtus.usual;
  if (usual === null) return [];
  return mtus.ports
    .filter((p) => p.value < usual)
    .map((p) =>
      finding("MTU_MISMATCH", subjectOf(p), { port: `${p.device} port ${p.port}`, activeMtu: p.value, usual }),
    );
}

const isIwarp = (d: IbDeviceReport) => /^iwarp$/i.test(d.transport ?? "");

/**
 * RoCE ports whose largest active MTU is below 4096, judged absolutely as verify's ROCE_MTU_LOW does (a single low
 * port among 4096 ones is MTU_MISMATCH's). The management NIC and iWARP devices are left out.
 */
function roceMtuFindings(devices: readonly IbDeviceReport[], management: string | null): Finding[] {
  const roce = devices.filter((d) => d.name !== management && !isIwarp(d));
  const mtus = roce.flatMap((d) =>
    d.ports
      .filter((p) => p.state === "ACTIVE" && p.linkLayer === "Ethernet" && p.activeMtu !== undefined)
      .map((p) => ({ device: d.name, mtu: p.activeMtu! })),
  );
  if (mtus.length === 0) return [];
  const largest = Math.max(...mtus.map((m) => m.mtu));
  if (largest >= 4096) return [];
  const names = compactNames([...new Set(mtus.map((m) => m.device))]);
  return [finding("ROCE_MTU_LOW", names, { ports: names, activeMtu: largest, netdevMtus: null })];
}

/** Devices whose transport ibv_devinfo prints as iWARP (irdma in iWARP mode, cxgb4): NCCL's IB transport cannot use them. */
function transportFindings(devices: readonly IbDeviceReport[], management: string | null): Finding[] {
  return devices
    .filter((d) => d.name !== management && isIwarp(d))
    .map((d) =>
      finding("IWARP_DEVICE", d.name, {
        nodeType: "RNIC",
        seen: `ibv_devinfo transport: ${d.transport}`,
        driver: /^irdma/.test(d.name) ? "irdma" : /^(cxgb4|iwp)/.test(d.name) ? "cxgb4" : null,
      }),
    );
}

function firmwareFindings(devices: readonly IbDeviceReport[]): Finding[] {
  const out: Finding[] = [];
  const byPart = new Map<string, IbDeviceReport[]>();
  for (const d of devices) {
    if (!d.partId || !d.fwVer) continue;
    const group = byPart.get(d.partId);
    if (group) group.push(d);
    else byPart.set(d.partId, [d]);
  }
  for (const [partId, group] of byPart) {
    const usual = mostCommon(
      group.map((d) => d.fwVer!),
      (a, b) => (naturalCompare(a, b) >= 0 ? a : b),
    );
    if (usual === null) continue;
    const usualHcas = compactNames(group.filter((d) => d.fwVer === usual).map((d) => d.name));
    for (const d of group) {
      if (d.fwVer !== usual) {
        const evidence = { fwVer: d.fwVer!, usualFw: usual, hcaType: partId, usualHcas, pciAddress: null };
        out.push(finding("FW_MISMATCH", d.name, evidence));
      }
    }
  }
  return out;
}

function summaryOf(devices: readonly IbDeviceReport[]): string {
  const ports = devices.flatMap((d) => d.ports);
  const states = tally(ports.map((p) => p.state))
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
  const rates = tally(ports.filter((p) => p.rateGbps !== undefined).map((p) => p.rateGbps!))
    .sort((a, b) => b[0] - a[0])
    .map(([r, n]) => `${r} Gb/s ×${n}`)
    .join(", ");
  const layers = tally(ports.map((p) => p.linkLayer))
    .map(([l]) => (l === "Ethernet" ? "RoCE" : l))
    .join("/");
  return `${plural(devices.length, "device")}, ${plural(ports.length, "port")} (${states || "none"})${layers ? `, ${layers}` : ""}${rates ? `; ${rates}` : ""}`;
}

/** Judges the ports of `ibv_devinfo` / `ibstat` / `ibstatus`: ACTIVE + LinkUp, one rate, one firmware per model. */
export function evaluatePorts(
  devices: readonly IbDeviceReport[],
  ctx: AnalyzeContext,
): { findings: Finding[]; summary: string } {
  const rates = activeValues(devices, (p) => p.rateGbps);
  const named = managementHcaOf(ctx);
  const management = named ?? guessManagement(devices, rates);
  return {
    findings: [
      ...stateFindings(devices),
      ...rateFindings(devices, rates, management, named !== null),
      ...mtuFindings(devices, management ?? firstOfOtherModel(devices)),
      ...roceMtuFindings(devices, management),
      ...transportFindings(devices, management),
      ...firmwareFindings(devices),
    ],
    summary: summaryOf(devices),
  };
}
