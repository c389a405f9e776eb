/** Data ports: active with the link up, all at the same speed and (RoCE) the same active MTU. */
import type { Finding } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import {
  type DataPort,
  dataPorts,
  groupsByCount,
  isRoce,
  isUp,
  netdevOf,
  physStateText,
  portEvidence,
  portLabel,
  portSubject,
  stateText,
} from "./select.js";
import type { Check } from "./types.js";

export const portStateCheck: Check = {
  name: "port-state",
  codes: ["PORT_DOWN", "PORT_NOT_LINKUP", "PORT_STATE_UNREADABLE"],
  run(inv) {
    const out: Finding[] = [];
    for (const dp of dataPorts(inv)) {
      const { hca, port } = dp;
      const ev = portEvidence(inv, dp);
      const subject = portSubject(hca, port);
      // A verdict never rests on missing data: a data port whose state, physical state or (when active) rate cannot
      // be read is an error, not a port assumed up.
      const unreadable = unreadableLinkFacts(port);
      if (unreadable.length > 0) {
        out.push(finding("PORT_STATE_UNREADABLE", subject, { ...ev, unreadable }));
        continue;
      }
      if (port.state !== "ACTIVE") {
        const operstate = inv.netdevs.find((n) => n.name === ev.netdev)?.operstate ?? null;
        const evidence = { ...ev, state: stateText(port.state), physState: physStateText(port.physState), operstate };
        out.push(finding("PORT_DOWN", subject, evidence));
      } else if (port.physState !== "LinkUp" && port.physState !== "UNKNOWN") {
        out.push(finding("PORT_NOT_LINKUP", subject, { ...ev, physState: physStateText(port.physState) }));
      }
    }
    return out;
  },
};

/** The link facts of a port that could not be read or understood: `state`, `phys_state`, `rate` (of an active port). */
function unreadableLinkFacts(port: DataPort["port"]): string[] {
  const out: string[] = [];
  if (port.state === "UNKNOWN") out.push("state");
  if (port.physState === "UNKNOWN") out.push("phys_state");
  // The kernel may refuse `rate` of a port that is down; an active port always has one.
  if (port.state === "ACTIVE" && port.rateGbps === null && port.rateText === null) out.push("rate");
  return out;
}

export const rateCheck: Check = {
  name: "port-rate",
  codes: ["RATE_MISMATCH"],
  run(inv) {
    const rated = dataPorts(inv).filter((dp) => isUp(dp.port) && dp.port.rateGbps !== null);
    // Rates are compared within one link layer: a 200 Gb/s Ethernet port of a BlueField beside 400 Gb/s InfiniBand
    // rails is another network, not a slow rail.
    const layers = new Map<string, typeof rated>();
    for (const dp of rated) layers.set(dp.port.linkLayer, [...(layers.get(dp.port.linkLayer) ?? []), dp]);
    return [...layers.values()].flatMap((ports) => rateFindings(inv, ports));
  },
};

function rateFindings(inv: NodeInventory, rated: DataPort[]): Finding[] {
  // On a tie the faster rate is taken as intended: the slower ports are the ones to look at.
  const [usual, ...odd] = groupsByCount(
    rated,
    (dp) => dp.port.rateGbps!,
    (a, b) => b - a,
  );
  if (!usual || odd.length === 0) return [];
  return odd.flatMap(([rateGbps, list]) =>
    list.map((dp) =>
      finding("RATE_MISMATCH", portSubject(dp.hca, dp.port), {
        ...portEvidence(inv, dp),
        rateGbps,
        rateText: dp.port.rateText,
        usualGbps: usual[0],
        usualCount: usual[1].length,
      }),
    ),
  );
}

/**
 * The IB MTU a RoCE port runs with for its netdev's MTU, as the kernel derives it (`iboe_get_mtu`: the netdev MTU less
 * the RoCE headers, GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 = 96 bytes, rounded down to an IB MTU):
 * 1500 → 1024, 4096 → 2048, 4200 and 9000 → 4096.
 */
export function roceActiveMtu(netdevMtu: number): number | null {
  const room = netdevMtu - 96;
  return [4096, 2048, 1024, 512, 256].find((m) => m <= room) ?? null;
}

/** Each RoCE data port that is up, its netdev and that netdev's MTU, and the active MTU it gives (null: unknown). */
export function roceDataPortMtus(inv: NodeInventory) {
  const mtuOf = new Map(inv.netdevs.map((n) => [n.name, n.mtu]));
  return dataPorts(inv)
    .filter((dp) => isRoce(dp.port) && isUp(dp.port))
    .map((dp) => {
      const netdev = netdevOf(inv, dp.hca, dp.port);
      const netdevMtu = netdev ? (mtuOf.get(netdev) ?? null) : null;
      return { dp, netdev, netdevMtu, activeMtu: netdevMtu === null ? null : roceActiveMtu(netdevMtu) };
    });
}

export const mtuCheck: Check = {
  name: "port-mtu",
  codes: ["MTU_MISMATCH"],
  run(inv) {
    const rated = roceDataPortMtus(inv).flatMap((r) =>
      r.activeMtu === null ? [] : [{ ...r, activeMtu: r.activeMtu }],
    );
    // On a tie the larger MTU is taken as intended: the smaller ones are the ones to look at.
    const [usual, ...odd] = groupsByCount(
      rated,
      (r) => r.activeMtu,
      (a, b) => b - a,
    );
    if (!usual) return [];
    return odd
      .filter(([activeMtu]) => activeMtu < usual[0])
      .flatMap(([, list]) =>
        list.map((r) =>
          finding("MTU_MISMATCH", portSubject(r.dp.hca, r.dp.port), {
            port: portLabel(r.dp.hca, r.dp.port),
            activeMtu: r.activeMtu,
            usual: usual[0],
            netdev: r.netdev,
            netdevMtu: r.netdevMtu,
          }),
        ),
      );
  },
};
