/**
 * The two ends of one leaf–spine cable: leaf uplink `j` of a leaf lands on the spine port `spinePortOf` names
 * (model.ts). A leaf uplink's identifier names what the leaf sends up the cable, the spine port's what the spine
 * sends down it; a fault in the cable or either optic may slow one direction (one fibre) or both (a lane down, a
 * lower negotiated speed). Pure.
 */
import { cablesPerSpine, leafOfHop, type RailFabric, spinePortId, spinePortOf, uplinkId } from "./model.js";

type Shape = Pick<RailFabric, "units" | "rails" | "spines" | "uplinksPerLeaf">;

/** The hop at the other end of `hop`'s cable (a spine port for a leaf uplink and back); null for anything else. */
export function farEnd(f: Shape, hop: string): string | null {
  const w = leafOfHop(f, hop);
  if (!w || w.unit >= f.units) return null;
  if (w.side === "uplink") {
    const j = Number(hop.slice(hop.lastIndexOf("uplink") + 6));
    if (!(j < f.uplinksPerLeaf)) return null;
    const p = spinePortOf({ ...f, lineRateGBps: 0, oversubscription: 1 }, w.unit, w.rail, j);
    return spinePortId(p.spine, p.port);
  }
  const m = /^spine(\d+)\/port(\d+)$/.exec(hop)!;
  const spine = Number(m[1]);
  if (spine >= f.spines) return null;
  const j = spine + (Number(m[2]) % cablesPerSpine(f)) * f.spines;
  return j < f.uplinksPerLeaf ? uplinkId(w.unit, w.rail, j) : null;
}

/** A cable's name, the same from either end: `unit1/leaf3/uplink5 ↔ spine5/port27`. */
export function cableOf(f: Shape, hop: string): string {
  const other = farEnd(f, hop);
  if (!other) return hop;
  return hop.startsWith("unit") ? `${hop} ↔ ${other}` : `${other} ↔ ${hop}`;
}
