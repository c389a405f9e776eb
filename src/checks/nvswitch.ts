/**
 * NVSwitch systems (HGX/DGX boards whose PCI bus shows NVSwitches): the GPUs registered with the NVLink fabric, every
 * NVLink active. Only on such hosts: elsewhere there is no fabric to set up.
 */
import type { Finding } from "../core/finding.js";
import type { NodeInventory } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { compactNames } from "./select.js";
import type { Check } from "./types.js";

/** Fabric states that say the driver does not report one for this GPU (A100 prints N/A: parsed as null). */
const NOT_REPORTED = new Set(["Not Supported"]);

function fabricFindings(inv: NodeInventory, switches: number): Finding[] {
  if (inv.driver.status !== "ok") return [];
  const reported = inv.gpus.filter((g) => g.fabric && !NOT_REPORTED.has(g.fabric.state));
  if (reported.length === 0) {
    return [
      finding(
        "CHECK_SKIPPED",
        "nvidia-fabricmanager",
        {
          checks: `The NVSwitch Fabric Manager on this board with ${switches} NVSwitch(es)`,
          why: "this driver and GPU generation report no NVLink Fabric State (nvidia-smi -q: Fabric N/A), and a service's state cannot be read from /sys or /proc",
          fix:
            "Check on the host: `systemctl is-active nvidia-fabricmanager` must say active and " +
            "`journalctl -u nvidia-fabricmanager` show no error; its version must equal the driver's. Without it CUDA " +
            "fails to start on an NVSwitch board (cudaErrorSystemNotReady).",
        },
        "info",
      ),
    ];
  }
  const groups = new Map<string, { state: string; status: string | null; gpus: string[] }>();
  for (const g of reported) {
    const { state, status } = g.fabric!;
    if (state === "Completed" && status === "Success") continue;
    const key = `${state}\u0000${status}`;
    const group = groups.get(key) ?? { state, status, gpus: [] };
    group.gpus.push(`GPU${g.index}`);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) =>
    finding("NVSWITCH_FABRIC_NOT_READY", compactNames(g.gpus), {
      gpus: compactNames(g.gpus),
      state: g.state,
      status: g.status,
      switches,
    }),
  );
}

export const nvswitchCheck: Check = {
  name: "nvswitch-fabric",
  codes: ["NVSWITCH_FABRIC_NOT_READY", "NVLINK_INACTIVE", "CHECK_SKIPPED"],
  run(inv) {
    const nv = inv.nvswitch;
    if (!nv) return [];
    const out = fabricFindings(inv, nv.switches.length);
    if (nv.nvlink === null) {
      out.push(
        finding("CHECK_SKIPPED", "nvidia-smi nvlink", {
          checks: "The NVLink link states of this NVSwitch board",
          why: nv.nvlinkError ?? "`nvidia-smi nvlink -s` gave nothing",
          fix: "Run `nvidia-smi nvlink -s` on the node (every link of every GPU must show a speed, none `<inactive>`) and `nvidia-smi nvlink -e` for the error counters.",
        }),
      );
      return out;
    }
    for (const g of nv.nvlink) {
      if (g.inactive.length === 0) continue;
      out.push(finding("NVLINK_INACTIVE", `GPU${g.gpu}`, { inactive: g.inactive, links: g.links, name: g.name }));
    }
    return out;
  },
};
