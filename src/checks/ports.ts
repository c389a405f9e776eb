/** Data ports: active with the link up, and all at the same speed. */
import type { Finding } from "../core/finding.js";
import { finding } from "./catalogue.js";
import { dataPorts, groupsByCount, isUp, physStateText, portEvidence, portSubject, stateText } from "./select.js";
import type { Check } from "./types.js";

export const portStateCheck: Check = {
  name: "port-state",
  codes: ["PORT_DOWN", "PORT_NOT_LINKUP"],
  run(inv) {
    const out: Finding[] = [];
    for (const dp of dataPorts(inv)) {
      const { hca, port } = dp;
      const ev = portEvidence(inv, dp);
      const subject = portSubject(hca, port);
      if (port.state === "UNKNOWN") continue; // unreadable: a READ_PROBLEM says so
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

export const rateCheck: Check = {
  name: "port-rate",
  codes: ["RATE_MISMATCH"],
  run(inv) {
    const rated = dataPorts(inv).filter((dp) => isUp(dp.port) && dp.port.rateGbps !== null);
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
  },
};
