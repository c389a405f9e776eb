/**
 * The InfiniBand wiring as the subnet manager's discovery prints it: `ibnetdiscover` (its topology text: a block per
 * node, `Switch N "S-<guid>" # "desc" … lid L lmc M` or `Ca N "H-<guid>" # "desc"`, then one line per connected
 * port, `[port] "S-<guid>"[peer port] # "peer desc" lid L 4xNDR`) and `ibnetdiscover -p` (one line per port,
 * `SW  lid port 0x<guid> 4x NDR - CA  lid port 0x<guid> ( 'desc' - 'peer desc' )`). Shapes from infiniband-diags'
 * ibnetdiscover.c (out_switch_port, out_ca_port, dump_ports_report) in github.com/linux-rdma/rdma-core. Pure.
 */
import { type Attachment, naturalOrder, type SwitchTier } from "./from-wiring.js";

export type IbNodeKind = "switch" | "ca" | "router";

/** One end of a cable: the node (GUID as printed, description) and its port. */
export type IbEnd = { kind: IbNodeKind; guid: string; desc: string; port: number; lid?: number };

/** One cable, each seen once whichever end printed it. */
export type IbLink = { a: IbEnd; b: IbEnd; rate?: string };

/** An HCA port and the switch port at its other end. */
export type HcaAttachment = {
  host: string;
  hca: string;
  hcaPort: number;
  lid?: number;
  leaf: string;
  leafGuid: string;
  leafPort: number;
};

/** A switch-to-switch cable seen from a leaf (a switch with HCAs below it). */
export type Uplink = { leaf: string; leafPort: number; spine: string; spinePort: number };

export type IbWiring = {
  hcas: HcaAttachment[];
  uplinks: Uplink[];
  /** Switches with HCAs below them, by description. */
  leaves: string[];
  /** Switches with only switches below them. */
  spines: string[];
  /** What the wiring does not show: a leaf with no uplink, an HCA whose description names no host. */
  notFound: string[];
};

const KIND: Record<string, IbNodeKind> = { S: "switch", H: "ca", R: "router", SW: "switch", CA: "ca", RT: "router" };
const HEADER = /^(Switch|Ca|Rt)\s+\d+\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(?:.*?\blid (\d+))?/;
// [1](portguid)  "S-guid"[3]  # ... ; or [1]  "H-guid"[1](portguid)  # "desc" lid 5 4xNDR
const PORT_LINE =
  /^\[(\d+)\](?:\[ext \d+\])?(?:\([0-9a-fA-F]+\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\[ext \d+\])?\s*(?:\([0-9a-fA-F]+\))?\s*#\s*(.*)$/;
const PORTS_REPORT =
  /^(SW|CA|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+(\S+)\s+(\S+)\s+-\s+(SW|CA|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+\(\s*'(.*)'\s+-\s+'(.*)'\s*\)\s*$/;

const norm = (guid: string) => guid.toLowerCase().replace(/^0+(?=.)/, "");
const endKey = (e: IbEnd) => `${e.kind}:${norm(e.guid)}:${e.port}`;

/** After `#` on a port line: switches print `"peer desc" lid L rate`, CAs `lid L lmc M "peer desc" lid L rate`. */
function peerComment(comment: string): { desc: string; lid?: number; rate?: string } {
  const m = /"([^"]*)"\s+lid (\d+)\s+(\S+)/.exec(comment);
  if (!m) return { desc: (/"([^"]*)"/.exec(comment)?.[1] ?? "").trim() };
  return { desc: m[1]!.trim(), lid: Number(m[2]), rate: m[3]! };
}

/** The cables of the default topology text. */
function topologyLinks(lines: string[]): IbLink[] | undefined {
  const out: IbLink[] = [];
  let node: Omit<IbEnd, "port"> | undefined;
  let headers = 0;
  for (const line of lines) {
    const h = HEADER.exec(line);
    if (h) {
      headers++;
      node = { kind: KIND[h[2]!]!, guid: norm(h[3]!), desc: h[4]!.trim() };
      if (h[5] !== undefined) node.lid = Number(h[5]);
      continue;
    }
    const p = PORT_LINE.exec(line);
    if (!p || !node) continue;
    const peer = peerComment(p[5]!);
    const b: IbEnd = { kind: KIND[p[2]!]!, guid: norm(p[3]!), desc: peer.desc, port: Number(p[4]) };
    if (peer.lid !== undefined) b.lid = peer.lid;
    const link: IbLink = { a: { ...node, port: Number(p[1]) }, b };
    if (peer.rate) link.rate = peer.rate;
    out.push(link);
  }
  return headers ? out : undefined;
}

/** The cables of `ibnetdiscover -p`. */
function portsReportLinks(lines: string[]): IbLink[] | undefined {
  const out: IbLink[] = [];
  for (const line of lines) {
    const m = PORTS_REPORT.exec(line);
    if (!m) continue;
    const a: IbEnd = { kind: KIND[m[1]!]!, lid: Number(m[2]), port: Number(m[3]), guid: norm(m[4]!), desc: m[11]! };
    const b: IbEnd = { kind: KIND[m[7]!]!, lid: Number(m[8]), port: Number(m[9]), guid: norm(m[10]!), desc: m[12]! };
    out.push({ a, b, rate: `${m[5]}${m[6]}` });
  }
  return out.length ? out : undefined;
}

/** Each cable once, whichever end printed it, in the order first seen. */
function dedupe(links: IbLink[]): IbLink[] {
  const seen = new Map<string, IbLink>();
  for (const l of links) {
    const key = [endKey(l.a), endKey(l.b)].sort().join("|");
    const known = seen.get(key);
    if (!known) seen.set(key, l);
    else if (!known.a.desc && l.b.desc) seen.set(key, { ...known, a: { ...known.a, desc: l.b.desc } });
  }
  return [...seen.values()];
}

/** The cables of either form, or a message saying what was expected. */
export function parseIbnetdiscover(text: string, source: string): IbLink[] | string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const links = topologyLinks(lines) ?? portsReportLinks(lines);
  if (!links)
    return `${source} is not ibnetdiscover output: expected its topology text (blocks starting "Switch 41 \\"S-<guid>\\"" or "Ca 2 \\"H-<guid>\\"" followed by "[port] …" lines) or its ports report (ibnetdiscover -p: lines like "SW 3 1 0x<guid> 4x NDR - CA 5 1 0x<guid> ( '…' - '…' )"). Run ibnetdiscover (or ibnetdiscover -p) on a host with an InfiniBand port and save its output.`;
  return dedupe(links);
}

/**
 * An HCA's node description as Linux hosts set it, "<host> <device>" (rdma-ndd's DEFAULT_ND_FORMAT "%h %d", the
 * host name without its domain; github.com/linux-rdma/rdma-core rdma-ndd/rdma-ndd.c), e.g. "gpu-07
 * mlx5_3"); a description of another shape (an adapter's factory text) names no host and is not guessed from.
 */
function hostAndHca(desc: string): { host: string; hca: string } | undefined {
  const m = /^(\S+)\s+([a-z][a-z0-9_]*\d)$/.exec(desc.trim());
  return m ? { host: m[1]!, hca: m[2]! } : undefined;
}

/** Switches' descriptions may repeat (an unset description); the GUID then names the switch. */
export function switchNames(links: readonly IbLink[]): (e: IbEnd) => string {
  const guidsOf = new Map<string, Set<string>>();
  for (const l of links)
    for (const e of [l.a, l.b])
      if (e.kind === "switch" && e.desc) guidsOf.set(e.desc, (guidsOf.get(e.desc) ?? new Set()).add(e.guid));
  const descOf = new Map<string, string>();
  for (const l of links) for (const e of [l.a, l.b]) if (e.kind === "switch" && e.desc) descOf.set(e.guid, e.desc);
  return (e) => {
    const d = descOf.get(e.guid);
    return d && guidsOf.get(d)?.size === 1 ? d : `0x${e.guid}`;
  };
}

/** Each HCA port's leaf and port, each leaf's uplinks, and what the wiring does not show. */
export function wiringFromLinks(links: readonly IbLink[]): IbWiring {
  const name = switchNames(links);
  const hcas: HcaAttachment[] = [];
  const uplinks: Uplink[] = [];
  const notFound: string[] = [];
  const switchLinks: [IbEnd, IbEnd][] = [];
  for (const l of links) {
    const [sw, other] = l.a.kind === "switch" ? [l.a, l.b] : [l.b, l.a];
    if (sw.kind !== "switch") continue; // HCA to HCA: no switch to name
    if (other.kind === "switch") {
      switchLinks.push([sw, other]);
      continue;
    }
    const who = hostAndHca(other.desc);
    if (!who) {
      notFound.push(
        `HCA 0x${other.guid} port ${other.port} (on ${name(sw)} port ${sw.port}) is described as ${JSON.stringify(other.desc)}, not "<host> <device>": it is left out; run rdma-ndd on its host so that its description names it.`,
      );
      continue;
    }
    const h: HcaAttachment = { ...who, hcaPort: other.port, leaf: name(sw), leafGuid: sw.guid, leafPort: sw.port };
    if (other.lid !== undefined) h.lid = other.lid;
    hcas.push(h);
  }
  const leaves = [...new Set(hcas.map((h) => h.leaf))].sort();
  const leafSet = new Set(leaves);
  for (const [x, y] of switchLinks) {
    const [leaf, spine] = leafSet.has(name(x)) ? [x, y] : [y, x];
    if (!leafSet.has(name(leaf)) || leafSet.has(name(spine))) continue; // spine to spine, or leaf to leaf
    uplinks.push({ leaf: name(leaf), leafPort: leaf.port, spine: name(spine), spinePort: spine.port });
  }
  const spines = [...new Set(uplinks.map((u) => u.spine))].sort(naturalOrder); // spine-2 before spine-10
  for (const leaf of leaves)
    if (!uplinks.some((u) => u.leaf === leaf))
      notFound.push(`leaf ${leaf} shows no uplink to a spine: its nodes reach no other leaf in this wiring.`);
  hcas.sort((p, q) => p.host.localeCompare(q.host) || p.hca.localeCompare(q.hca) || p.hcaPort - q.hcaPort);
  uplinks.sort((p, q) => p.leaf.localeCompare(q.leaf) || p.leafPort - q.leafPort);
  return { hcas, uplinks, leaves, spines, notFound };
}

/** Each host's HCA ports as attachments (a second port of one HCA is `mlx5_0/2`), and the uplinks per leaf. */
export function attachmentsFromWiring(w: IbWiring): {
  byNode: Map<string, Attachment[]>;
  tier: SwitchTier;
} {
  const multiPort = new Set(w.hcas.filter((h) => h.hcaPort > 1).map((h) => `${h.host} ${h.hca}`));
  const byNode = new Map<string, Attachment[]>();
  for (const h of w.hcas) {
    const iface = multiPort.has(`${h.host} ${h.hca}`) ? `${h.hca}/${h.hcaPort}` : h.hca;
    const list = byNode.get(h.host) ?? [];
    list.push({ iface, switchName: h.leaf, switchPort: String(h.leafPort) });
    byNode.set(h.host, list);
  }
  const uplinksOf = new Map<string, number>();
  for (const u of w.uplinks) uplinksOf.set(u.leaf, (uplinksOf.get(u.leaf) ?? 0) + 1);
  return { byNode, tier: { uplinksOf, spines: w.spines.length } };
}
