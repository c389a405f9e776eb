import { type Problem, problem } from "../core/result.js";
import type { LinkLayer, PhysState, PortState } from "../inventory/types.js";

/** One port as `ibv_devinfo` / `ibstat` / `ibstatus` report it (the `analyze` data contract plus extras). */
export type IbPortReport = {
  port: number;
  /** The kernel word: ACTIVE, DOWN, INIT, … */
  state: PortState;
  physState?: PhysState;
  linkLayer: LinkLayer;
  rateGbps?: number;
  /** ibv_devinfo `active_mtu` / `max_mtu` in bytes (`4096 (5)` → 4096). */
  activeMtu?: number;
  maxMtu?: number;
  /** `port_lid`/`Base lid` and `sm_lid`/`SM lid` as printed (decimal or 0x…); RoCE ports show 0. */
  lid?: string;
  smLid?: string;
  /** ibv_devinfo -v: GIDs as listed (uncompressed), with their RoCE version when printed. */
  gids?: { index: number; gid: string; version: "v1" | "v2" | null }[];
  /**
   * ibv_devinfo went on past `port_lmc` with no `link_layer:` line, where every version since libibverbs 1.1.4 prints
   * one right after it: a tool that predates link layers (verbs then knew only InfiniBand).
   */
  linkLayerUnprinted?: true;
  /**
   * The link layer line's word where it names neither InfiniBand nor Ethernet (`SCIF`, Intel's Xeon Phi verbs): as
   * printed, with `linkLayer` Unknown; no other reading (LIDs) overrides what the line said. Not `Unknown` or
   * `Unspecified` (rdma-core's words for no link layer: EFA).
   */
  linkLayerPrinted?: string;
};

export type IbDeviceReport = {
  name: string;
  fwVer: string | null;
  /** ibv_devinfo `vendor_part_id` (decimal, `4123`) or ibstat `CA type` (`MT4123`). */
  partId: string | null;
  boardId: string | null;
  nodeGuid: string | null;
  sysImageGuid: string | null;
  /** `phys_port_cnt` / `Number of ports`: compared with the port blocks read to spot a cut capture. */
  portCount: number | null;
  /** ibv_devinfo `transport:` as its word (`InfiniBand`, also printed for RoCE; `iWARP`); absent when not printed. */
  transport?: string;
  ports: IbPortReport[];
};

export type IbDevicesReport = { devices: IbDeviceReport[] };

/** A device block just opened: nothing read yet. */
export function emptyDevice(name: string): IbDeviceReport {
  return {
    name,
    fwVer: null,
    partId: null,
    boardId: null,
    nodeGuid: null,
    sysImageGuid: null,
    portCount: null,
    ports: [],
  };
}

/** `code` problems for devices with fewer port blocks than they announced (a capture cut short). */
export function missingPortProblems(devices: readonly IbDeviceReport[], code: string): Problem[] {
  return devices
    .filter((d) => d.ports.length < (d.portCount ?? 1))
    .map((d) =>
      problem(code, `${d.name}: ${d.portCount ?? 1} port(s) announced, ${d.ports.length} read (truncated capture?).`),
    );
}

/**
 * Devices were named but not one port of any was read (a paste cut after the first `hca_id:`/`CA '…'` line):
 * nothing about ports, link layers or GIDs can be judged, so the capture must not read as a checked one.
 */
export function noPortReadProblem(devices: readonly IbDeviceReport[], code: string, command: string): Problem | null {
  if (devices.length === 0 || devices.some((d) => d.ports.length > 0)) return null;
  return problem(
    code,
    `${devices.map((d) => d.name).join(", ")} named but no port of ${devices.length === 1 ? "it" : "any"} was read: the capture was cut before its ports. No port was checked.`,
    { hint: `Re-run \`${command}\` and paste all of it.` },
  );
}

const STATES: Record<string, PortState> = {
  NOP: "NOP",
  DOWN: "DOWN",
  INIT: "INIT",
  INITIALIZING: "INIT",
  ARMED: "ARMED",
  ACTIVE: "ACTIVE",
  ACTIVE_DEFER: "ACTIVE_DEFER",
  ACTIVEDEFER: "ACTIVE_DEFER",
};
const STATE_NUMBERS: PortState[] = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"];

/** `PORT_ACTIVE (4)`, `Active`, `4: ACTIVE`, `Initializing` → the kernel word. */
export function portStateOf(text: string): PortState {
  const t = text.trim();
  const num = /\((\d)\)\s*$/.exec(t) ?? /^(\d):/.exec(t);
  if (num) return STATE_NUMBERS[Number(num[1])] ?? "UNKNOWN";
  const word = t
    .replace(/^PORT_/i, "")
    .replace(/[\s-]+/g, "_")
    .toUpperCase();
  return STATES[word] ?? STATES[word.replace(/_/g, "")] ?? "UNKNOWN";
}

const PHYS_NUMBERS: PhysState[] = [
  "UNKNOWN",
  "Sleep",
  "Polling",
  "Disabled",
  "PortConfigurationTraining",
  "LinkUp",
  "LinkErrorRecovery",
  "PhyTest",
];
const PHYS_WORDS = new Map(PHYS_NUMBERS.map((p) => [p.toLowerCase(), p]));

/** `LINK_UP (5)`, `LinkUp`, `5: LinkUp`, `Phy Test` → the kernel word (spaces removed). */
export function physStateOf(text: string): PhysState {
  const t = text.trim();
  const num = /\((\d)\)\s*$/.exec(t) ?? /^(\d):/.exec(t);
  if (num) return PHYS_NUMBERS[Number(num[1])] ?? "UNKNOWN";
  return PHYS_WORDS.get(t.replace(/[\s_]+/g, "").toLowerCase()) ?? "UNKNOWN";
}

/** A field's value when it is one word (no space inside), else null: what follows a word is no tool's. */
export function oneWord(value: string): string | null {
  const v = value.trim();
  return v === "" || /\s/.test(v) ? null : v;
}

/**
 * `Link layer:` as printed: `InfiniBand` or `Ethernet`, and `IB` from infiniband-diags 1.5 (OFED 1.5's ibstat, shape
 * seen at https://docs.oracle.com/cd/E72784_01/BIXOG/GUID-C9EB7E1B-B762-4ABC-9725-13DAB44C8B23.htm).
 */
export function linkLayerOf(text: string): LinkLayer {
  const t = text.trim().toLowerCase();
  if (t === "ethernet") return "Ethernet";
  if (t === "infiniband" || t === "ib") return "InfiniBand";
  return "Unknown";
}

/** Sets a port's link layer from its line's word, keeping a word that names neither (IbPortReport.linkLayerPrinted). */
export function setLinkLayer(port: { linkLayer: LinkLayer; linkLayerPrinted?: string }, value: string): void {
  port.linkLayer = linkLayerOf(value);
  const word = value.trim();
  if (port.linkLayer === "Unknown" && /^[A-Za-z][\w-]{0,31}$/.test(word) && !/^(?:unknown|unspecified)$/i.test(word))
    port.linkLayerPrinted = word;
}
