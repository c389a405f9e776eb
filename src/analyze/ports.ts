import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import { naturalCompare } from "../core/natural.js";
import type { IbDeviceReport } from "../parse/ib-ports.js";
import { ANALYZE_CATALOGUE as C } from "./catalogue.js";
import { managementHcaOf, mostCommon, plural, tally } from "./context.js";
import type { AnalyzeContext } from "./types.js";

type PortRef = { device: string; port: number; multiPort: boolean };

const subjectOf = (p: PortRef) => (p.multiPort || p.port !== 1 ? `${p.device}/${p.port}` : p.device);

function stateFindings(devices: readonly IbDeviceReport[]): Finding[] {
  const out: Finding[] = [];
  for (const d of devices) {
    for (const p of d.ports) {
      const subject = subjectOf({ device: d.name, port: p.port, multiPort: d.ports.length > 1 });
      if (p.state !== "ACTIVE") {
        out.push(
          makeFinding(C, "PORT_DOWN", subject, {
            port: p.port,
            state: p.state,
            physState: p.physState ?? null,
            netdev: null,
            link: null,
          }),
        );
      } else if (p.physState !== undefined && p.physState !== "LinkUp") {
        out.push(makeFinding(C, "PORT_NOT_LINKUP", subject, { port: p.port, state: p.state, physState: p.physState }));
      }
    }
  }
  return out;
}

/**
 * Without a node model, the first device is taken for the management NIC when it alone runs at its (lower) rate,
 * or when it is a different HCA model from the rest (the seed: a 25 Gb/s ConnectX-4 Lx beside ConnectX-6 rails).
 */
function guessManagement(
  devices: readonly IbDeviceReport[],
  ports: readonly { device: string; rate: number }[],
  usual: number,
): string | null {
  const sorted = [...devices].sort((a, b) => naturalCompare(a.name, b.name));
  const first = sorted[0];
  if (!first || devices.length < 3) return null;
  const own = ports.filter((p) => p.device === first.name);
  const slower = own.length > 0 && own.every((p) => p.rate < usual);
  const alone = own.every((p) => ports.filter((q) => q.rate === p.rate).length === own.length);
  const partOf = mostCommon(
    sorted.slice(1).flatMap((d) => (d.partId ? [d.partId] : [])),
    (a) => a,
  );
  const otherModel = first.partId !== null && partOf !== null && first.partId !== partOf;
  return slower && (alone || otherModel) ? first.name : null;
}

/**
 * A port slower than most is an error, except the management NIC: named by the node model when given, else
 * guessed as the first device when it alone is slower (the seed's mlx5_0 runs at 25 Gb/s beside 200 Gb/s rails).
 */
function rateFindings(devices: readonly IbDeviceReport[], ctx: AnalyzeContext): Finding[] {
  const ports = devices.flatMap((d) =>
    d.ports
      .filter((p) => p.state === "ACTIVE" && p.rateGbps !== undefined)
      .map((p) => ({ device: d.name, port: p.port, multiPort: d.ports.length > 1, rate: p.rateGbps! })),
  );
  const usual = mostCommon(
    ports.map((p) => p.rate),
    (a, b) => Math.max(a, b),
  );
  if (usual === null) return [];
  const odd = ports.filter((p) => p.rate !== usual);
  const named = managementHcaOf(ctx);
  const guessed = named === null ? guessManagement(devices, ports, usual) : null;
  return odd.map((p) => {
    const management = p.device === (named ?? guessed);
    return makeFinding(
      C,
      "RATE_MISMATCH",
      subjectOf(p),
      { port: p.port, rateGbps: p.rate, usual, management, named: management && named !== null },
      management ? "info" : undefined,
    );
  });
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
    for (const d of group) {
      if (usual !== null && d.fwVer !== usual) {
        out.push(makeFinding(C, "FW_MISMATCH", d.name, { fwVer: d.fwVer!, usual, partId }));
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
  return {
    findings: [...stateFindings(devices), ...rateFindings(devices, ctx), ...firmwareFindings(devices)],
    summary: summaryOf(devices),
  };
}
