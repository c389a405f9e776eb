/**
 * Every flow's path on InfiniBand from the switches' own forwarding tables: start at the source HCA's leaf, send the
 * flow out of the port the switch's table gives for the destination LID, cross the cable at that port to the next
 * switch, until the destination HCA. On InfiniBand the route depends on the destination LID only (no UDP source port
 * takes part), so the path is exact, for every pair at once, without one `ibtracert` per pair. A LID missing from a
 * table, a port with no cable, a loop, or a flow delivered elsewhere leaves that flow's path unknown, with the reason:
 * never guessed. Pure.
 */
import type { Flow, FlowPath } from "../model.js";
import { hopsFromTrace, type IbNames } from "./ib-paths.js";
import { type IbEnd, type IbLink, switchNames } from "./ibnetdiscover.js";
import type { TraceHop, TracePath } from "./ibtracert.js";
import type { ForwardingTable } from "./lft.js";

/** More switches than this on one path is a loop (a fat tree of any size crosses at most 5 tiers up and down). */
const MAX_SWITCHES = 16;

const portKey = (guid: string, port: number) => `${guid}:${port}`;

export type RouteTracer = {
  /** The path of a flow from `src`'s HCA of its rail to `dst`'s, as the forwarding tables send it. */
  path(src: string, dst: string, hca: string): TracePath | string;
};

/** A tracer over the cables (from `ibnetdiscover`) and the forwarding tables (from `ibroute` / `dump_lfts.sh`). */
export function routeTracer(links: readonly IbLink[], tables: readonly ForwardingTable[]): RouteTracer {
  const peer = new Map<string, IbEnd>();
  const hcaEnds = new Map<string, IbEnd>();
  for (const l of links) {
    peer.set(portKey(l.a.guid, l.a.port), l.b);
    peer.set(portKey(l.b.guid, l.b.port), l.a);
    for (const e of [l.a, l.b]) {
      if (e.kind !== "ca") continue;
      const key = e.desc.trim().replace(/\s+/g, " ");
      const known = hcaEnds.get(key);
      if (!known || e.port < known.port) hcaEnds.set(key, e);
    }
  }
  const tableOf = new Map(tables.map((t) => [t.guid, t]));
  // A LID the wiring did not print is read from what the tables resolved it to. A port with LMC > 0 has 2^LMC LIDs
  // from its base LID up; NCCL sends to the base LID with no path bits (src/transport/net_ib/connect.cc), so the
  // lowest is the one its traffic follows.
  const lidOf = new Map<string, number>();
  for (const t of tables)
    for (const [lid, d] of t.dest) {
      const key = d.trim().replace(/\s+/g, " ");
      if (!(lidOf.get(key)! <= lid)) lidOf.set(key, lid);
    }
  const name = switchNames(links);
  return {
    path(src, dst, hca) {
      const from = hcaEnds.get(`${src} ${hca}`);
      const to = hcaEnds.get(`${dst} ${hca}`);
      if (!from) return `no HCA described as "${src} ${hca}" in the wiring.`;
      if (!to) return `no HCA described as "${dst} ${hca}" in the wiring.`;
      const dlid = to.lid ?? lidOf.get(`${dst} ${hca}`);
      if (dlid === undefined) return `the LID of "${dst} ${hca}" is in neither the wiring nor the tables.`;
      let at = peer.get(portKey(from.guid, from.port));
      if (at?.kind !== "switch") return `"${src} ${hca}" is not cabled to a switch.`;
      const hops: TraceHop[] = [];
      while (hops.length < MAX_SWITCHES) {
        const sw = at;
        const t = tableOf.get(sw.guid);
        if (!t) return `no forwarding table for switch ${name(sw)} (0x${sw.guid}).`;
        const out = t.out.get(dlid);
        if (out === undefined || out === 0) return `switch ${name(sw)} has no route to LID ${dlid} ("${dst} ${hca}").`;
        hops.push({ guid: sw.guid, name: name(sw), lid: t.lid ?? 0, inPort: sw.port, outPort: out });
        const next = peer.get(portKey(sw.guid, out));
        if (!next) return `switch ${name(sw)} sends LID ${dlid} out of port ${out}, which has no cable.`;
        if (next.kind !== "switch") {
          if (next.guid === to.guid && next.port === to.port) {
            const end = (e: IbEnd, lid: number | undefined) => ({
              kind: "ca",
              guid: e.guid,
              lid: lid ?? 0,
              desc: e.desc,
            });
            return { from: end(from, from.lid), to: end(to, dlid), hops };
          }
          return `switch ${name(sw)} delivers LID ${dlid} to "${next.desc}", not to "${dst} ${hca}".`;
        }
        at = next;
      }
      return `the route to LID ${dlid} ("${dst} ${hca}") crosses more than ${MAX_SWITCHES} switches: a loop.`;
    },
  };
}

/**
 * The planner's trace: each flow's leaf uplink and spine port from the tables (rail r's HCA is `hcas[r]`), one
 * lookup per node pair and rail whatever the source port. A flow whose path cannot be read, or not named, gets
 * unknown hops (judged by nothing) and its reason is kept in `problems` (the first few, and how many in all).
 */
export function tableTrace(
  tracer: RouteTracer,
  names: IbNames,
  hcas: readonly string[],
): { trace: (f: Flow) => FlowPath; problems: { first: string[]; total: number } } {
  const cache = new Map<string, FlowPath>();
  const problems = { first: [] as string[], total: 0 };
  const unknown: FlowPath = { uplink: null, spinePort: null };
  const trace = (f: Flow): FlowPath => {
    const key = `${f.src}|${f.dst}|${f.rail}`;
    const known = cache.get(key);
    if (known) return known;
    const hca = hcas[f.rail];
    const p = hca === undefined ? `rail ${f.rail} has no HCA name.` : tracer.path(f.src, f.dst, hca);
    const hops = typeof p === "string" ? p : hopsFromTrace(names, p);
    let result = unknown;
    if (typeof hops === "string") {
      problems.total++;
      if (problems.first.length < 5) problems.first.push(`${f.src} → ${f.dst} rail ${f.rail}: ${hops}`);
    } else result = hops;
    cache.set(key, result);
    return result;
  };
  return { trace, problems };
}
