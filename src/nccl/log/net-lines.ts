import { logLineStart } from "../../core/log-line-prefixes.js";
import { hostOf, indexInLine, keep, processKey } from "./line.js";
import { bump, type LogState, setCapped } from "./state.js";
import { addWarning } from "./warnings.js";

/** The process keyed `key` has begun setting up its network (LogState.netPhase). */
export function enterNetPhase(st: LogState, key: string): void {
  if (!st.netPhase.has(key)) setCapped(st.netPhase, keep(key), 1);
}

/** NCCL's line for a network plugin it loaded: `NET/Plugin: Loaded net plugin Libfabric (v12)`, the name before `(v`. */
const LOADED_PLUGIN = /^NET\/Plugin ?: Loaded net plugin (\S(?:.*\S)?) \(v\d+\)/;

/** aws-ofi-nccl's report of the provider its init chose and the devices found (`… (found 16 nics)`). */
const FOUND_DEVICES = /\bSelected provider is .*\(found [1-9]\d* nics?\)/i;

/** A device list's items: `[2]mlx5_ib2:1/IB/SHARP`, `[0]={[0] mlx5_0:1/IB`. */
const LIST_START = /^\[\d+\]/;
const LIST_ITEM = /\[\d+\](?:=\{\[\d+\])?\s?[A-Za-z0-9_.-]+:\d+(?::\d*)*\/(?:IB|RoCE)(?:\/[A-Za-z]+)*/g;

/**
 * The `NET/…` INFO messages of an NCCL log (src/transport/net_ib.cc, net_socket.cc): the devices NCCL chose and their
 * link layers, each NIC's speed, the out-of-band interface, no device found, GPUDirect RDMA turned off for an HCA.
 * Every rank prints the same device list: each distinct list is parsed once.
 */
export class NetLines {
  constructor(private readonly st: LogState) {}

  /** A `NET/…` INFO message at `msg`, of the record whose host starts at `p` (`host` its host, `k` its marker). */
  read(s: string, p: number, k: number, msg: number, end: number, host: string): void {
    const st = this.st;
    const socket = s.startsWith("NET/Socket", msg);
    if (s.startsWith("NET/Plugin", msg)) {
      enterNetPhase(st, processKey(s, p, k));
      // `NET/Plugin: Loaded net plugin %s (v%d)` (src/plugin/net/net_vN.cc): the plugin's ncclNet->name.
      const loaded = LOADED_PLUGIN.exec(s.slice(msg, end))?.[1];
      if (loaded !== undefined) bump(st.loadedPlugins, keep(loaded));
      return;
    }
    if (socket && st.netPhase.has(processKey(s, p, k))) st.socketNetLists++;
    if (socket || s.startsWith("NET/IB : Using ", msg) || s.startsWith("NET/IB: Using ", msg)) {
      let semi = indexInLine(s, "; OOB ", msg, end);
      if (semi < 0) semi = end;
      else this.oob(s, semi + 6, end);
      // Every rank of every communicator prints the same list: parse each distinct list once.
      const last = this.lastList;
      if (last !== null && semi - msg === last.length && s.startsWith(last, msg)) {
        bump(st.deviceLists, this.lastListNames);
      } else {
        const list = keep(s.slice(msg, semi));
        this.lastList = list;
        this.lastListNames = keep(this.devicesOf(list, socket));
        bump(st.deviceLists, this.lastListNames);
      }
      // No `; OOB` at its end: the list may go on, on the lines after it (a page wrapped it).
      this.open = !socket && semi === end ? this.lastListNames : null;
      return;
    }
    if (s.startsWith("NET/IB: [", msg) || s.startsWith("NET/IB : [", msg)) {
      this.nicSpeed(s, msg, end, host);
      return;
    }
    // aws-ofi-nccl's tuner: `NET/OFI Tuner init: comm with %ld ranks and %ld nodes.` (src/tuner/nccl_ofi_tuner.c in
    // https://github.com/aws/aws-ofi-nccl): the communicator's size, as NCCL handed it to the plugin.
    if (s.startsWith("NET/OFI ", msg)) {
      if (FOUND_DEVICES.test(s.slice(msg, end))) st.pluginFoundDevices++;
      const ranks = /\bTuner init: comm with (\d+) ranks and \d+ nodes/.exec(s.slice(msg, end))?.[1];
      if (ranks !== undefined && Number(ranks) > st.nranks) st.nranks = Number(ranks);
      return;
    }
    if (s.startsWith("NET/IB : No device found", msg) || s.startsWith("NET/IB: No device found", msg)) {
      st.noDeviceFound++;
      addWarning(st, s.slice(msg, end), hostOf(processKey(s, p, k)));
      return;
    }
    // INFO lines that explain a slow or socket run by themselves (src/transport/net_ib.cc, src/misc/param.cc):
    // GPUDirect turned off for one HCA.
    if (
      s.startsWith("NET/IB : GPU Direct RDMA Disabled for HCA", msg) ||
      s.startsWith("NET/IB: GPU Direct RDMA Disabled for HCA", msg)
    ) {
      // The IB transport's own line: it opened the HCA (net_ib.cc), so the run was setting up IB.
      st.ibWarnings++;
      addWarning(st, s.slice(msg, end), hostOf(processKey(s, p, k)));
    }
  }

  /**
   * One device per line: `NET/IB: [3] mlx5_4:uverbs4:1/RoCE provider=Mlx5 speed=200000 context=0x… pciPath=… ar=0`
   * (NCCL ≥ 2.20), `NET/IB: [0] mlx5_1:1/IB` (NCCL 2.3).
   */
  private nicSpeed(s: string, msg: number, end: number, host: string): void {
    const m = /\[(\d+)\] ([^:\s]+):(?:[^:\s]*:)?(\d+)\/(IB|RoCE)\b(?:.*?\bspeed=(\d+))?/.exec(s.slice(msg, end));
    if (!m) return;
    const dev = `${m[2]}:${m[3]}`;
    if (!this.st.devices.has(dev))
      setCapped(this.st.devices, keep(dev), {
        name: m[2]!,
        port: Number(m[3]),
        linkLayer: m[4] === "IB" ? "IB" : "RoCE",
        index: Number(m[1]),
      });
    if (m[5] === undefined) return;
    const key = `${host}\t${dev}`;
    if (!this.st.nicSpeeds.has(key)) setCapped(this.st.nicSpeeds, keep(key), Number(m[5]));
  }

  private lastList: string | null = null;
  private lastListNames = "";

  /** The device list of the last `NET/IB : Using` line when it ended with no `; OOB`, else null. */
  open: string | null = null;

  /**
   * A line that goes on with the device list of the `NET/IB : Using` line before it, which a page or a logger wrapped
   * (`                        [2]mlx5_ib2:1/IB/SHARP [3]mlx5_ib3:1/IB/SHARP`, the list's own `[n]dev:port/LL` items,
   * then maybe `[RO]; OOB …`): its devices join the list. Whether the line was taken; any other line ends the list.
   */
  continued(s: string, start: number, end: number): boolean {
    const open = this.open;
    if (open === null) return false;
    // Behind the launcher's or collector's prefix the record's line had too (`[1] `, `pod/x/y `).
    // A rank's or device's `[4] ` tag stays before it (a list's own items have no space after their index).
    const text = s
      .slice(logLineStart(s, start, end), end)
      .trim()
      .replace(/^\[\d+\](?:\s+|$)/, "");
    // A line left blank behind its prefix (a double-spaced copy) neither goes on with the list nor ends it.
    if (text === "") return true;
    const semi = text.indexOf("; OOB ");
    const list = semi < 0 ? text : text.slice(0, semi);
    if (!LIST_START.test(list) || list.replace(LIST_ITEM, "").replace(/[\s,={}\\]|\[RO\]/g, "") !== "") {
      this.open = null;
      return false;
    }
    const st = this.st;
    const names = this.devicesOf(list, false);
    const key = keep(`${open},${names}`);
    // The list counted as printed so far is this longer one.
    const n = st.deviceLists.get(open) ?? 0;
    if (n <= 1) st.deviceLists.delete(open);
    else st.deviceLists.set(open, n - 1);
    bump(st.deviceLists, key);
    // The next rank's first line is parsed again: its list goes on the same way.
    this.lastList = null;
    this.open = semi < 0 ? key : null;
    if (semi >= 0) this.oob(text, semi + 6, text.length);
    return true;
  }

  private devicesOf(list: string, socket: boolean): string {
    const st = this.st;
    const names: string[] = [];
    if (socket) {
      for (const m of list.matchAll(/\[(\d+)\]([^:\s[\]]+):/g)) {
        names.push(m[2]!);
        const key = `${m[2]}/Socket`;
        if (!st.devices.has(key))
          setCapped(st.devices, key, { name: m[2]!, port: 0, linkLayer: "Socket", index: Number(m[1]) });
      }
      return `socket:${names.join(",")}`;
    }
    // NCCL ≥ 2.20 lists a merged dual-port NIC as one device, `[0]={[0] mlx5_0:1/IB, [1] mlx5_0:2/IB}`: its ports take
    // the group's place in the order.
    let group = -1;
    let groupEnd = -1;
    for (const m of list.matchAll(/\[(\d+)\]=\{|(?:\[(\d+)\]\s?)?([A-Za-z0-9_.-]+):(\d+)(?::\d*)*\/(IB|RoCE)/g)) {
      if (m[1] !== undefined) {
        group = Number(m[1]);
        groupEnd = list.indexOf("}", m.index);
        continue;
      }
      if (m.index > groupEnd) group = -1;
      const key = `${m[3]}:${m[4]}`;
      names.push(key);
      const own = m[2] === undefined ? null : Number(m[2]);
      // A port of a merged NIC sorts within its group's place (the group's index, then the port's own below it).
      const index = group >= 0 ? { index: group + (own ?? 0) / 1000 } : own === null ? {} : { index: own };
      const linkLayer = m[5] === "IB" ? "IB" : "RoCE";
      if (!st.devices.has(key)) setCapped(st.devices, key, { name: m[3]!, port: Number(m[4]), linkLayer, ...index });
    }
    return names.join(",");
  }

  /** `; OOB eth0:10.0.60.3<0>` → eth0. */
  private oob(s: string, at: number, end: number): void {
    let colon = indexInLine(s, ":", at, end);
    if (colon < 0) colon = end;
    const last = this.lastOob;
    if (last !== null && colon - at === last.length && s.startsWith(last, at)) {
      bump(this.st.oob, last);
      return;
    }
    this.lastOob = keep(s.slice(at, colon));
    bump(this.st.oob, this.lastOob);
  }

  private lastOob: string | null = null;
}
