/** The NVSwitch part of the node model: the switches and each GPU's NVLinks. Pure. */
import { NOT_RECORDED } from "../host/errors.js";
import { parseNvlinkStatus } from "../parse/nvlink-status.js";
import type { NvlinkFacts } from "./facts.js";
import type { Reading } from "./reading.js";
import type { NvSwitchState } from "./types.js";

export function buildNvSwitch(rd: Reading, facts: NvlinkFacts | undefined): { nvswitch?: NvSwitchState } {
  if (!facts || facts.switches.length === 0) return {};
  const o = facts.status;
  const base = { switches: facts.switches };
  if (!o) return { nvswitch: { ...base, nvlink: null, nvlinkError: "`nvidia-smi nvlink -s` was not run" } };
  if (o.error || o.exitCode !== 0) {
    const said = (o.stderr.trim() || o.stdout.trim()).split("\n")[0] ?? "";
    const why =
      o.error?.code === NOT_RECORDED
        ? "this snapshot has no record of `nvidia-smi nvlink -s`"
        : (o.error?.message ?? `\`${o.command}\` exited with ${o.exitCode}${said ? `: ${said.slice(0, 200)}` : ""}`);
    return { nvswitch: { ...base, nvlink: null, nvlinkError: why } };
  }
  const parsed = rd.parsed(parseNvlinkStatus(o.stdout), o.command);
  if (!parsed) return { nvswitch: { ...base, nvlink: null, nvlinkError: "its output could not be read" } };
  return {
    nvswitch: {
      ...base,
      nvlink: parsed.map((g) => ({
        gpu: g.gpu,
        name: g.name,
        links: g.links.length,
        inactive: g.links.filter((l) => l.gbps === null).map((l) => l.link),
      })),
      nvlinkError: null,
    },
  };
}
