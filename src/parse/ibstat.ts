import { naturalCompare } from "../core/natural.js";
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { captureLines, excerpt, leadingNumber, withoutNote } from "./capture.js";
import {
  emptyDevice,
  type IbDeviceReport,
  type IbDevicesReport,
  type IbPortReport,
  missingPortProblems,
  noPortReadProblem,
  oneWord,
  physStateOf,
  portStateOf,
  setLinkLayer,
} from "./ib-ports.js";

export type Ibstat = IbDevicesReport & {
  /** `ibstat` (CA blocks) or `ibstatus` (one block per device port). */
  format: "ibstat" | "ibstatus";
};

/** A device's name alone on its line (`mlx5_0`, `mlx5_bond_0`, `rocep1s0f0`, `irdma1`): one of `ibstat -l`'s. */
const LISTED_NAME =
  /^\s*(?:mlx\d_\w+|rocep\w+|ibp\w+|irdma\d+|bnxt_re\d+|qedr\d+|hfi1_\d+|qib\d+|erdma_\d+|efa_\d+)\s*$/;

/** `CA 'mlx5_0'`, or `CA: 'mlx4_1'` as `ibstat CA PORT` prints it before the one port it shows. */
const CA = /^\s*CA:?\s+'([^']+)'/;
const PORT = /^\s*Port\s+(\d+):\s*$/;
const IBSTATUS = /^\s*Infiniband device\s+'([^']+)'\s+port\s+(\d+)\s+status:/i;
const KEY_VALUE = /^\s*([A-Za-z][A-Za-z _]*?):\s*(.*)$/;
const PANIC = /^\s*(ibpanic|ibwarn|ibstat):.*$/;

type PortDraft = IbPortReport & { sawState: boolean };

function applyDeviceKey(dev: IbDeviceReport, key: string, raw: string): void {
  // Each device field is one word (`20.26.1040`, `MT4123`, `0x…`): more after it is a page's residue, not read.
  const value = oneWord(raw);
  if (value === null) return;
  if (key === "firmware version") dev.fwVer = value;
  else if (key === "ca type") dev.partId = value;
  else if (key === "node guid") dev.nodeGuid = value;
  else if (key === "system image guid") dev.sysImageGuid = value;
  else if (key === "number of ports" && /^\d+$/.test(value)) dev.portCount = Number(value);
}

function applyPortKey(port: PortDraft, key: string, value: string): void {
  if (key === "state") {
    port.state = portStateOf(value);
    port.sawState = true;
  } else if (key === "physical state" || key === "phys state") port.physState = physStateOf(value);
  else if (key === "link layer" || key === "link_layer") setLinkLayer(port, value);
  else if (key === "base lid") port.lid = value;
  else if (key === "sm lid") port.smLid = value;
  else if (key === "rate") {
    const r = leadingNumber(value);
    if (r !== null) port.rateGbps = r;
  }
}

/** `later`'s known values over `earlier`'s (an unknown state or link layer, an absent value, leaves the earlier one). */
function mergePort<T extends object>(earlier: T, later: T): T {
  const out = { ...earlier } as Record<string, unknown>;
  for (const [k, v] of Object.entries(later))
    if (v !== undefined && v !== null && v !== "UNKNOWN" && v !== "Unknown") out[k] = v;
  return out as T;
}

/**
 * Parses `ibstat` (`CA 'mlx5_0'` blocks with `Port 1:` sub-blocks: `State: Active`, `Physical state: LinkUp`,
 * `Rate: 200`, `Link layer: Ethernet`) and `ibstatus` (`Infiniband device 'mlx5_0' port 1 status:` blocks with
 * `state: 4: ACTIVE`, `rate: 200 Gb/sec (4X HDR)`). States come back as the kernel word.
 */
export function parseIbstat(text: string): ParseResult<Ibstat> {
  const problems: Problem[] = [];
  const devices = new Map<string, IbDeviceReport>();
  let format: Ibstat["format"] | null = null;
  let dev: IbDeviceReport | null = null;
  let port: PortDraft | null = null;
  const closePort = () => {
    if (dev && port) {
      if (!port.sawState) {
        problems.push(problem("ibstat.port_incomplete", `${dev.name} port ${port.port}: no state line (truncated?).`));
      }
      const { sawState: _s, ...p } = port;
      // One port read twice (`ibstatus` then `ibstat` in one paste, or a block pasted again) is one port: what the
      // later block says wins, what only the earlier one said stays.
      const same = dev.ports.findIndex((x) => x.port === p.port);
      if (same >= 0) dev.ports[same] = mergePort(dev.ports[same]!, p);
      else dev.ports.push(p);
    }
    port = null;
  };
  const deviceNamed = (name: string) => {
    const d = devices.get(name) ?? emptyDevice(name);
    devices.set(name, d);
    return d;
  };
  /** Lines that are a device's name alone: `ibstat -l`'s list. */
  const listed: string[] = [];
  for (const { text: t, line } of captureLines(text)) {
    if (LISTED_NAME.test(t)) listed.push(t.trim());
    const ca = CA.exec(t);
    if (ca) {
      closePort();
      format = "ibstat";
      dev = deviceNamed(ca[1]!);
      continue;
    }
    const st = IBSTATUS.exec(t);
    if (st) {
      closePort();
      format ??= "ibstatus";
      dev = deviceNamed(st[1]!);
      port = { port: Number(st[2]), state: "UNKNOWN", linkLayer: "Unknown", sawState: false };
      continue;
    }
    if (PANIC.test(t)) {
      problems.push(problem("ibstat.tool_error", `Line ${line}: ${excerpt(t)}`, { line }));
      continue;
    }
    if (!dev) continue;
    const p = PORT.exec(t);
    if (p) {
      closePort();
      port = { port: Number(p[1]), state: "UNKNOWN", linkLayer: "Unknown", sawState: false };
      continue;
    }
    const kv = KEY_VALUE.exec(t);
    if (!kv) continue;
    const key = kv[1]!.trim().toLowerCase();
    const value = withoutNote(kv[2]!);
    if (port) applyPortKey(port, key, value);
    else applyDeviceKey(dev, key, value);
  }
  closePort();
  // `ibstat -l` lists the CAs' names, one to a line (infiniband-diags ibstat.c): the names are facts, no port is read.
  if (devices.size === 0 && listed.length > 1) {
    const named = [...new Set(listed)].sort(naturalCompare).map(emptyDevice);
    return ok({ devices: named, format: "ibstat" }, [
      ...problems,
      noPortReadProblem(named, "ibstat.no_ports", "ibstat") ?? problem("ibstat.no_ports", "No port was read."),
    ]);
  }
  if (devices.size === 0 || format === null) {
    if (problems.length > 0) return fail(...problems);
    return fail(
      problem(
        "ibstat.unrecognised",
        "No `CA '<name>'` or `Infiniband device '<name>' port N status:` block was found.",
        {
          hint: "Capture it with `ibstat > ibstat.txt` or `ibstatus > ibstatus.txt` (infiniband-diags).",
        },
      ),
    );
  }
  const list = [...devices.values()].sort((a, b) => naturalCompare(a.name, b.name));
  const noPort = noPortReadProblem(list, "ibstat.no_ports", format === "ibstatus" ? "ibstatus" : "ibstat");
  // `ibstat | grep "CA '"` keeps the device names of every CA, none with a port, and a paste cut before the first
  // port names its device: the names are facts, and that no port was read is said beside them.
  if (noPort) return ok({ devices: list, format }, [...problems, noPort]);
  problems.push(...missingPortProblems(list, "ibstat.missing_ports"));
  for (const d of list) d.ports.sort((a, b) => a.port - b.port);
  return ok({ devices: list, format }, problems);
}
