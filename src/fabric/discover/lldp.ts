/**
 * A node's LLDP neighbours, read from lldpd's JSON (`lldpctl -f json`, `lldpcli show neighbors -f json`, and the
 * array-only `-f json0`), and the rail-optimised shape they imply. lldpd writes `-f json` with one interface as an
 * object keyed by its name and several as an array of such objects; `json0` always uses arrays of `{ value }`
 * (lldpcli(8): "json0 is more verbose than json but the structure … is not affected by the number of
 * interfaces"; https://www.mankier.com/8/lldpcli). Pure: the caller runs the command on each node.
 */
import type { TopologyFile } from "../topology-file.js";
import { topologyFromAttachments } from "./from-wiring.js";

/** One local interface and the switch port at its other end. */
export type LldpNeighbour = { iface: string; switchName: string; switchPort: string };

type J = Record<string, unknown>;
const isObj = (v: unknown): v is J => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** A json0 `[{ value }]`, a json string, or an `{ value }`: the text. */
function text(v: unknown): string | undefined {
  const first = list(v)[0];
  if (typeof first === "string") return first;
  if (isObj(first) && typeof first.value === "string") return first.value;
  return undefined;
}

/** The interfaces of either shape as (name, body) pairs. */
function interfaces(lldp: unknown): [string, J][] {
  const out: [string, J][] = [];
  for (const block of list(isObj(lldp) ? lldp : list(lldp)[0])) {
    if (!isObj(block)) continue;
    for (const entry of list(block.interface)) {
      if (!isObj(entry)) continue;
      // json0: { name, chassis: [...], port: [...] }; json: { eth0: { chassis: {...}, port: {...} } }
      if (typeof entry.name === "string") out.push([entry.name, entry]);
      else for (const [name, body] of Object.entries(entry)) if (isObj(body)) out.push([name, body]);
    }
  }
  return out;
}

/** The switch's name: json0 `chassis[0].name[0].value`; json `chassis: { <name>: { id, … } }`. */
function chassisName(chassis: unknown): string | undefined {
  const c = list(chassis)[0];
  if (!isObj(c)) return undefined;
  const named = text(c.name);
  if (named) return named;
  const keys = Object.keys(c).filter((k) => isObj(c[k]));
  if (keys.length === 1 && isObj(c[keys[0]!]) && "id" in (c[keys[0]!] as J)) return keys[0];
  return text(isObj(c.id) ? c.id : list(c.id)[0]);
}

/** The far port: its description where it names the port, else its id (an ifname, or a MAC as last resort). */
function portName(port: unknown): string | undefined {
  const p = list(port)[0];
  if (!isObj(p)) return undefined;
  const id = list(p.id)[0];
  const idValue = isObj(id) ? (typeof id.value === "string" ? id.value : undefined) : text(p.id);
  const idType = isObj(id) && typeof id.type === "string" ? id.type : undefined;
  return idType === "ifname" || idType === "local" ? idValue : (text(p.descr) ?? idValue);
}

/** The neighbours, or a message saying what was expected. */
export function parseLldpJson(raw: string, source: string): LldpNeighbour[] | string {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return `${source} is not JSON: expected the output of \`lldpcli show neighbors -f json\` (or -f json0).`;
  }
  if (!isObj(doc) || !("lldp" in doc))
    return `${source}: expected an object with an "lldp" key, as \`lldpcli show neighbors -f json\` prints.`;
  const out: LldpNeighbour[] = [];
  for (const [iface, body] of interfaces(doc.lldp)) {
    const switchName = chassisName(body.chassis);
    const switchPort = portName(body.port);
    if (switchName && switchPort) out.push({ iface, switchName, switchPort });
  }
  return out.sort((a, b) => a.iface.localeCompare(b.iface));
}

/**
 * The rail-optimised shape of a fleet from each node's neighbours on its data NICs (`nics`, in rail order): rail i
 * of a node is the switch NIC i reaches; nodes whose NICs reach the same switches form one unit (from-wiring.ts).
 * Returns the topology file's content, or what contradicts the shape — here a node without a neighbour on a data
 * NIC is one.
 */
export function topologyFromLldp(
  byNode: ReadonlyMap<string, readonly LldpNeighbour[]>,
  nics: readonly string[],
): { topology: TopologyFile; unitOf: Map<string, number>; leaves: string[][] } | string {
  const hint = "run lldpd on every node (and enable LLDP on the switch ports) so that each data NIC's switch is known.";
  for (const [node, neighbours] of byNode) {
    const missing = nics.filter((nic) => !neighbours.some((n) => n.iface === nic));
    if (missing.length) return `${node}: no LLDP neighbour on ${missing.join(", ")}; ${hint}`;
  }
  const found = topologyFromAttachments(byNode, { nics, hint });
  if (typeof found === "string") return found;
  const unitOf = new Map(found.units.flatMap((unit, u) => unit.nodes.map((n) => [n, u] as const)));
  return { topology: found.topology, unitOf, leaves: found.units.map((unit) => unit.leaves) };
}
