/** The PCIe-ACS, IOMMU and lossless-RoCE part of the node model. Pure. */
import { NOT_RECORDED } from "../host/errors.js";
import type { CommandOutcome } from "../host/types.js";
import { acsRedirects, parsePciConfig } from "../parse/pci-config.js";
import { parseDcbPfc, parseEthtoolStats, parseMlnxQos, parseTrafficClass } from "../parse/roce-qos.js";
import type { BridgeFacts, Fact, IommuFacts, RoceQosFacts } from "./facts.js";
import { ETHTOOL_PORT_LINES } from "./read-fabric.js";
import type { Reading } from "./reading.js";
import type { IommuState, PcieBridge, RoceQos } from "./types.js";

export function buildBridges(rd: Reading, facts: readonly BridgeFacts[]): PcieBridge[] {
  return facts.map((b) => {
    const path = `/sys/bus/pci/devices/${b.address}/config`;
    const text = rd.value(path, b.config, ["ENOENT", "EACCES", "EPERM"]);
    const parsed = text === null ? null : rd.parsed(parsePciConfig(text, path), path);
    if (!parsed) return { address: b.address, portType: null, config: "unreadable", acs: null };
    const config =
      parsed.extendedSpace === "present" ? "full" : parsed.extendedSpace === "absent" ? "no_extended" : "header_only";
    return {
      address: b.address,
      portType: parsed.portType,
      config,
      acs: parsed.acs ? { control: parsed.acs.control, redirects: acsRedirects(parsed.acs) } : null,
    };
  });
}

/**
 * Whether the kernel command line asks for IOMMU passthrough: `iommu=pt` (and `iommu=nopt` against it), or
 * `iommu.passthrough=<bool>` read as the kernel's kstrtobool reads it (1/y/Y/on true, 0/n/N/off false); the last
 * one given wins. `iommu=on` or `iommu=1` is no passthrough (Documentation/admin-guide/kernel-parameters.txt,
 * "iommu=" and "iommu.passthrough="). Null: none of them given.
 */
export function passthroughOnCmdline(cmdline: string): boolean | null {
  let result: boolean | null = null;
  for (const word of cmdline.split(/\s+/)) {
    if (word === "iommu=pt") result = true;
    else if (word === "iommu=nopt") result = false;
    else if (word.startsWith("iommu.passthrough=")) {
      const v = word.slice("iommu.passthrough=".length);
      if (/^[yY1]/.test(v) || /^on$/i.test(v)) result = true;
      else if (/^[nN0]/.test(v) || /^off$/i.test(v)) result = false;
    }
  }
  return result;
}
const OFF_ARG = /(?:^|\s)(?:intel_iommu|amd_iommu|iommu)=off(?=\s|$)/;

export function buildIommu(facts: IommuFacts): IommuState {
  const units = facts.units.ok ? [...facts.units.value].sort() : [];
  const cmdline = facts.cmdline.ok ? facts.cmdline.value.trim() : null;
  const groups = facts.devices.filter((d) => d.group.ok);
  const groupTypes = [
    ...new Set(groups.flatMap((d) => (d.type?.ok && d.type.value.trim() ? [d.type.value.trim()] : []))),
  ];
  const base = { units, cmdline, groupTypes };
  const translated = groupTypes.filter((t) => t.startsWith("DMA"));
  if (translated.length > 0) {
    return {
      ...base,
      mode: "translated",
      reason: `the GPUs' and NICs' IOMMU groups use ${translated.join(", ")} domains`,
    };
  }
  if (groupTypes.length > 0 && groupTypes.every((t) => t === "identity")) {
    return { ...base, mode: "passthrough", reason: "the GPUs' and NICs' IOMMU groups use identity domains" };
  }
  if (
    groups.length === 0 &&
    facts.devices.length > 0 &&
    facts.devices.every((d) => !d.group.ok && d.group.error.code === "ENOENT")
  ) {
    return { ...base, mode: "off", reason: "no GPU or NIC has an iommu_group" };
  }
  if (groups.length > 0 && cmdline !== null) {
    if (passthroughOnCmdline(cmdline) === true)
      return { ...base, mode: "passthrough", reason: "the kernel command line has iommu=pt or iommu.passthrough=1" };
    if (!OFF_ARG.test(cmdline)) {
      return {
        ...base,
        mode: "translated",
        reason: "devices have IOMMU groups and the kernel command line has no iommu=pt (nor iommu.passthrough=1)",
      };
    }
  }
  return {
    ...base,
    mode: "unknown",
    reason: cmdline === null ? "/proc/cmdline could not be read" : "no IOMMU group could be read",
  };
}

function flags(rd: Reading, dir: string, facts: readonly Fact[]): boolean[] | null {
  if (facts.every((f) => !f.ok && f.error.code === "ENOENT")) return null;
  // The path is only written out for a switch that could not be read (the problem names it).
  return facts.map((f, i) => (f.ok ? f.value.trim() === "1" : rd.value(`${dir}/${i}`, f, ["ENOENT"]) === "1"));
}

export function buildRoceQos(rd: Reading, facts: readonly RoceQosFacts[]): RoceQos[] {
  return facts.map((f) => {
    const tcPath = `/sys/class/infiniband/${f.hca}/tc/1/traffic_class`;
    const tcText = rd.value(tcPath, f.trafficClass, ["ENOENT"]);
    const tc = tcText === null ? null : rd.parsed(parseTrafficClass(tcText), tcPath);
    const qosOut = f.mlnxQos.error || f.mlnxQos.exitCode !== 0 ? null : f.mlnxQos.stdout;
    const qos = qosOut === null ? null : rd.parsed(parseMlnxQos(qosOut), f.mlnxQos.command);
    const dcb = dcbPfcOf(rd, f);
    const qosFailure = dcb ? dcb.failure : mlnxQosFailure(f.mlnxQos);
    return {
      netdev: f.netdev,
      hca: f.hca,
      ecnNp: flags(rd, `/sys/class/net/${f.netdev}/ecn/roce_np/enable`, f.ecnNp),
      ecnRp: flags(rd, `/sys/class/net/${f.netdev}/ecn/roce_rp/enable`, f.ecnRp),
      trafficClass: tc ?? null,
      trafficClassExposed: tcText !== null,
      ...(f.cmaRoceTos ? { cmaRoceTos: cmaTosOf(f.cmaRoceTos) } : {}),
      trust: qos?.trust ?? null,
      dscpToPriority: qos && Object.keys(qos.dscpToPriority).length > 0 ? qos.dscpToPriority : null,
      pfcEnabled: qos?.pfcEnabled ?? dcb?.pfcEnabled ?? null,
      ...(dcb?.pfcEnabled ? { pfcFrom: "dcb" as const } : {}),
      ...(qosFailure === null ? {} : { qosError: qosFailure }),
      ...portCountersOf(rd, f),
      ...(f.cnp ? { cnp: { prio: smallIntOf(f.cnp.prio, 7), dscp: smallIntOf(f.cnp.dscp, 63) } } : {}),
    };
  });
}

/** The `ethtool -S` counters, or why there are none (not installed, failed, no counter lines). */
function portCountersOf(rd: Reading, f: RoceQosFacts): Pick<RoceQos, "portCounters" | "portCountersError"> {
  const o = f.ethtoolStats;
  if (!o) return {};
  if (o.error || o.exitCode !== 0) {
    const why =
      o.error?.code === "ENOENT"
        ? `\`ethtool\` is not installed${o.ranFrom ? ` where it was looked for (${o.ranFrom})` : ""}`
        : o.error?.code === NOT_RECORDED
          ? "there is no record of `ethtool -S`"
          : `\`${o.command}\` failed: ${mlnxQosFailure(o) ?? "no output"}`;
    return { portCounters: null, portCountersError: why };
  }
  // A driver without per-port statistics prints only the header (or nothing once the per-ring lines are dropped).
  // Only the lines a snapshot keeps, so that a live host and its snapshot give the same node model.
  const kept = o.stdout
    .split("\n")
    .filter((l) => ETHTOOL_PORT_LINES.test(l))
    .join("\n");
  const stats = kept.trim() === "" ? null : rd.parsed(parseEthtoolStats(kept), o.command);
  if (stats === null || Object.keys(stats).length === 0) {
    return { portCounters: null, portCountersError: noPortCounters(o.command) };
  }
  return { portCounters: stats };
}

/** Why a netdev's `ethtool -S` gave nothing to judge: no counter lines, or none under the names mlx5 gives them. */
export const noPortCounters = (command: string) =>
  `\`${command}\` printed none of the port counters read here (mlx5's rx_discards_phy, rx_prioN_pause, *_phy: ` +
  "another driver names its counters differently)";

/** A small decimal sysfs value (a priority 0-7, a DSCP 0-63); null when absent or not a number in range. */
function smallIntOf(f: Fact, max: number): number | null {
  if (!f.ok) return null;
  const t = f.value.trim();
  return /^\d+$/.test(t) && Number(t) <= max ? Number(t) : null;
}

/**
 * PFC from `dcb pfc show` where mlnx_qos is not installed (or a snapshot has no record of it): the enabled
 * priorities, or why neither tool could tell (then PFC is a check that could not run, never a silent pass). Null
 * when mlnx_qos answered or failed itself (its own failure is said as such).
 */
function dcbPfcOf(rd: Reading, f: RoceQosFacts): { pfcEnabled: number[] | null; failure: string | null } | null {
  const code = f.mlnxQos.error?.code;
  if (code !== "ENOENT" && code !== NOT_RECORDED) return null;
  const o = f.dcbPfc;
  const missing = code === "ENOENT" ? "`mlnx_qos` is not installed" : "there is no record of `mlnx_qos`";
  if (!o || o.error?.code === NOT_RECORDED) return { pfcEnabled: null, failure: `${missing} nor of \`dcb pfc show\`` };
  if (o.error || o.exitCode !== 0) {
    const why = o.error?.code === "ENOENT" ? "not installed either" : (mlnxQosFailure(o) ?? "failed");
    return { pfcEnabled: null, failure: `${missing} and \`dcb pfc show\` failed: ${why}` };
  }
  const parsed = rd.parsed(parseDcbPfc(o.stdout), o.command);
  if (parsed === null) return { pfcEnabled: null, failure: `${missing} and \`dcb pfc show\` printed no prio-pfc line` };
  return { pfcEnabled: parsed, failure: null };
}

/** configfs default_roce_tos: a decimal ToS byte (0 when set back to the default). */
function cmaTosOf(f: Fact): number | null {
  if (!f.ok) return null;
  const t = f.value.trim();
  return /^\d+$/.test(t) && Number(t) <= 255 ? Number(t) : null;
}

const lastLine = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .at(-1);

/**
 * Why `mlnx_qos` gave no PFC settings when it ran and failed (a Python traceback's last line, a netlink error). Null
 * when it answered, or is not installed or not recorded: ECN alone is then judged, as on inbox rdma-core.
 */
export function mlnxQosFailure(o: CommandOutcome): string | null {
  if (o.error?.code === "ENOENT" || o.error?.code === NOT_RECORDED) return null;
  // Without the command itself, so that the same failure on every netdev reads as one.
  if (o.error)
    return o.error.message.startsWith(`${o.command}: `) ? o.error.message.slice(o.command.length + 2) : o.error.message;
  if (o.exitCode === 0) return null;
  const said = lastLine(o.stderr) ?? lastLine(o.stdout);
  return `exited with ${o.exitCode}${said ? `: ${said.slice(0, 200)}` : ""}`;
}
