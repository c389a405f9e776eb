/**
 * A port's GID table, read the way show_gids does. Its own module: `kube-rdma gids` loads this, not the whole
 * inventory reader.
 */
import { listNumbers, readIn, readNumbered } from "../host/reads.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { isEmptyGidText, parseGid } from "../parse/sysfs.js";
import type { GidFact, PortFacts } from "./facts.js";

/** Reads one port's GID table the way show_gids does: every slot, attributes only for configured GIDs. */
export function readPortGids(reader: HostReader, portDir: string): Pick<PortFacts, "gidSlots" | "gids"> {
  const list = listNumbers(reader, `${portDir}/gids`);
  if (!list.ok) return { gidSlots: list, gids: [] };
  const indices = list.value;
  // An empty slot's text is discarded below, so the reader need not check its file (see HostReader.readNumbered).
  const texts = readNumbered(reader, `${portDir}/gids`, indices, isEmptyGidText);
  // Empty slots (most of a 255-slot table) are counted in gidSlots but not kept: nothing reads them.
  const gids: GidFact[] = [];
  const configured: GidFact[] = [];
  // A snapshot answers every slot of a run of empty GIDs with one shared object: compared once, then by identity.
  let empty: ReadOutcome<string> | undefined;
  for (let k = 0; k < indices.length; k++) {
    const gid = texts[k]!;
    if (gid === empty) continue;
    if (gid.ok && isEmptyGidText(gid.value)) {
      empty = gid;
      continue;
    }
    const g: GidFact = { index: indices[k]!, gid };
    gids.push(g);
    const parsed = gid.ok ? parseGid(gid.value) : null;
    if (parsed?.ok && parsed.value.configured) configured.push(g);
  }
  if (configured.length > 0) {
    const slots = configured.map((g) => String(g.index));
    const types = readIn(reader, `${portDir}/gid_attrs/types`, slots);
    const ndevs = readIn(reader, `${portDir}/gid_attrs/ndevs`, slots);
    configured.forEach((g, k) => {
      g.type = types[k]!;
      g.ndev = ndevs[k]!;
    });
  }
  return { gidSlots: { ok: true, value: indices.length }, gids };
}
