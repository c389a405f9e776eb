import { naturalCompare } from "../core/natural.js";
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { captureLines, excerpt, leadingNumber, withoutNote } from "./capture.js";
import { expandGid } from "./gid-text.js";
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

export type IbvDevinfo = IbDevicesReport & {
  /** `-v` output (GIDs, widths and speeds present). */
  verbose: boolean;
  /** The tool said `No IB devices found`. */
  noDevices: boolean;
  /** Only `ibv_devinfo -l`'s list of names: the devices' ports were not read. */
  listOnly?: boolean;
};

const HCA_ID = /^\s*hca_id:\s*(\S+)/;
const KEY_VALUE = /^\s*([A-Za-z_][\w]*):\s*(.*)$/;
const GID_LINE = /^\s*GID\[\s*(\d+)\]:\s*([0-9a-fA-F:.]+),?\s*(.*)$/;
const NO_DEVICES = /No IB devices found/i;
/**
 * `ibv_devinfo -l`: `4 HCAs found:` then each device's name on a line of its own after a tab, then an empty line
 * (libibverbs/examples/devinfo.c in https://github.com/linux-rdma/rdma-core: `"%d HCA%s found:\n"`, `"\t%s\n"`).
 */
const LIST_HEAD = /^\s*(\d+) HCAs? found:\s*$/;
const LIST_NAME = /^\s*([A-Za-z][\w.-]*)\s*$/;
const FAILURE = /^\s*(Failed to get IB devices list.*|ibv_devinfo: .*|\S+: command not found)\s*$/;

type PortDraft = IbPortReport & { width?: number; laneGbps?: number; sawState: boolean; afterLmc?: boolean };

function versionOfGidType(text: string): "v1" | "v2" | null {
  const m = /v(\d)/i.exec(text);
  if (!m) return null;
  return m[1] === "2" ? "v2" : "v1";
}

function finishPort(p: PortDraft): IbPortReport {
  const { width, laneGbps, sawState: _s, afterLmc: _l, ...port } = p;
  if (width !== undefined && laneGbps !== undefined) port.rateGbps = Math.round(width * laneGbps * 1000) / 1000;
  return port;
}

function applyDeviceKey(dev: IbDeviceReport, key: string, value: string): void {
  const v = value.trim();
  if (key === "transport" && /^[A-Za-z]\w*/.test(v)) dev.transport = /^[A-Za-z]\w*/.exec(v)![0];
  // The other device fields are one word each (`20.26.1040`, `MT_0000000223`): more after it is a page's residue.
  const word = oneWord(v);
  if (word === null) return;
  if (key === "fw_ver") dev.fwVer = word;
  else if (key === "vendor_part_id") dev.partId = word;
  else if (key === "board_id") dev.boardId = word;
  else if (key === "node_guid") dev.nodeGuid = word;
  else if (key === "sys_image_guid") dev.sysImageGuid = word;
  else if (key === "phys_port_cnt" && /^\d+$/.test(word)) dev.portCount = Number(word);
}

function applyPortKey(port: PortDraft, key: string, value: string): void {
  // rdma-core's devinfo.c prints `link_layer:` right after `port_lmc:`, in every port block, verbose or not.
  if (port.afterLmc && key !== "link_layer" && port.linkLayer === "Unknown") port.linkLayerUnprinted = true;
  port.afterLmc = key === "port_lmc";
  if (key === "state") {
    port.state = portStateOf(value);
    port.sawState = true;
  } else if (key === "phys_state") port.physState = physStateOf(value);
  else if (key === "link_layer") setLinkLayer(port, value);
  else if (key === "active_width") {
    const w = /^\s*(\d+)X/i.exec(value);
    if (w) port.width = Number(w[1]);
  } else if (key === "active_mtu" || key === "max_mtu") {
    const mtu = leadingNumber(value);
    if (mtu !== null) port[key === "active_mtu" ? "activeMtu" : "maxMtu"] = mtu;
  } else if (key === "port_lid") port.lid = value.trim();
  else if (key === "sm_lid") port.smLid = value.trim();
  else if (key === "active_speed") {
    const s = leadingNumber(value);
    if (s !== null && s > 0) port.laneGbps = s;
  }
}

/**
 * Parses `ibv_devinfo` and `ibv_devinfo -v`: one block per `hca_id:`, device keys, then `port:` blocks with
 * `state: PORT_ACTIVE (4)`, `link_layer`, and with -v `active_width`/`active_speed` (rate = width × lane speed) and
 * `GID[  n]:` lines (compressed or not; `, RoCE v2` suffix).
 */
export function parseIbvDevinfo(text: string): ParseResult<IbvDevinfo> {
  const problems: Problem[] = [];
  const devices: IbDeviceReport[] = [];
  let dev: IbDeviceReport | null = null;
  let port: PortDraft | null = null;
  let verbose = false;
  let noDevices = false;
  const closePort = () => {
    if (dev && port) {
      if (!port.sawState) {
        problems.push(
          problem("ibv_devinfo.port_incomplete", `${dev.name} port ${port.port}: no state line (truncated capture?).`),
        );
      } else if (verbose && port.physState === undefined) {
        // -v prints phys_state after the port's other attributes: without it the block was cut.
        problems.push(
          problem(
            "ibv_devinfo.port_incomplete",
            `${dev.name} port ${port.port}: the -v block ends early (truncated capture?).`,
          ),
        );
      }
      dev.ports.push(finishPort(port));
    }
    port = null;
  };
  /** Names of an `ibv_devinfo -l` list, and how many it said it would list (-1: no list open). */
  const listed: string[] = [];
  let listing = -1;
  for (const { text: t, line } of captureLines(text)) {
    if (listing > 0) {
      const name = LIST_NAME.exec(t);
      if (name) {
        listed.push(name[1]!);
        listing--;
        continue;
      }
      listing = -1;
    }
    const head = dev ? null : LIST_HEAD.exec(t);
    if (head) {
      listing = Number(head[1]);
      continue;
    }
    const hca = HCA_ID.exec(t);
    if (hca) {
      closePort();
      dev = emptyDevice(hca[1]!);
      devices.push(dev);
      continue;
    }
    if (!dev) {
      if (NO_DEVICES.test(t)) noDevices = true;
      const failure = FAILURE.exec(t);
      if (failure)
        problems.push(problem("ibv_devinfo.failed", `ibv_devinfo failed: ${excerpt(failure[1]!)}`, { line }));
      continue;
    }
    const gid = t.includes("GID[") ? GID_LINE.exec(t) : null;
    if (gid) {
      verbose = true;
      const full = expandGid(gid[2]!);
      if (!port) continue;
      if (!full) {
        problems.push(problem("ibv_devinfo.bad_gid", `Line ${line}: "${excerpt(t)}" is not a GID.`, { line }));
        continue;
      }
      port.gids ??= [];
      port.gids.push({ index: Number(gid[1]), gid: full, version: versionOfGidType(gid[3] ?? "") });
      continue;
    }
    const kv = KEY_VALUE.exec(t);
    if (!kv) continue;
    const [, key, noted] = kv as unknown as [string, string, string];
    const value = withoutNote(noted);
    if (key === "port") {
      // The next port's block after `port_lmc:`: no link layer was printed for this one either.
      if (port?.afterLmc && port.linkLayer === "Unknown") port.linkLayerUnprinted = true;
      closePort();
      const n = Number(value.trim());
      if (!Number.isInteger(n) || n < 1) {
        problems.push(
          problem("ibv_devinfo.bad_port", `Line ${line}: port "${excerpt(value)}" is not a number.`, { line }),
        );
        continue;
      }
      port = { port: n, state: "UNKNOWN", linkLayer: "Unknown", sawState: false };
      continue;
    }
    if (key === "active_width" || key === "max_mr_size") verbose = true;
    if (port) applyPortKey(port, key, value);
    else applyDeviceKey(dev, key, value);
  }
  closePort();
  // Only the list: the devices by name, no port read (the list says nothing of ports).
  if (devices.length === 0 && listed.length > 0) {
    const named = [...new Set(listed)].sort(naturalCompare).map(emptyDevice);
    return ok({ devices: named, verbose: false, noDevices: false, listOnly: true }, problems);
  }
  if (devices.length === 0 && !noDevices) {
    if (problems.length > 0) return fail(...problems);
    return fail(
      problem("ibv_devinfo.unrecognised", "No `hca_id:` block was found.", {
        hint: "Capture it with `ibv_devinfo -v > devinfo.txt` (rdma-core / libibverbs-utils).",
      }),
    );
  }
  const noPort = noPortReadProblem(devices, "ibv_devinfo.no_ports", "ibv_devinfo -v");
  // A paste cut before the first port (`ibv_devinfo -v`'s device fields only): the devices it names are facts, that no
  // port was read is said beside them.
  if (noPort) {
    const named = devices.sort((a, b) => naturalCompare(a.name, b.name));
    return ok({ devices: named, verbose, noDevices: false, listOnly: true }, [...problems, noPort]);
  }
  problems.push(...missingPortProblems(devices, "ibv_devinfo.missing_ports"));
  for (const d of devices) unspecifiedTransportLinkLayer(d);
  devices.sort((a, b) => naturalCompare(a.name, b.name));
  return ok({ devices, verbose, noDevices }, problems);
}

/**
 * A device of transport `unspecified (4)` (AWS EFA: vendor 0x1d0f) has no InfiniBand link layer: rdma-core's
 * ibv_devinfo before the fix printed its unspecified link layer as `InfiniBand` (`link_layer_str` mapped
 * IBV_LINK_LAYER_UNSPECIFIED and IBV_LINK_LAYER_INFINIBAND alike), while sysfs reads `Unknown`
 * (https://github.com/linux-rdma/rdma-core/pull/884). The printed word is not evidence of InfiniBand there.
 */
function unspecifiedTransportLinkLayer(dev: IbDeviceReport): void {
  if (dev.transport?.toLowerCase() !== "unspecified") return;
  for (const p of dev.ports) if (p.linkLayer === "InfiniBand") p.linkLayer = "Unknown";
}
