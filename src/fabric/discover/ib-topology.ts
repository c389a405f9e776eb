/**
 * An InfiniBand fabric read once from `ibnetdiscover` text: its cables, the wiring they make (each HCA's leaf, each
 * leaf's uplinks) and the rail-optimised topology it shows, for `fleet topology` and for `fleet bench`'s routes. Pure.
 */
import { type DiscoveredTopology, topologyFromAttachments } from "./from-wiring.js";
import {
  attachmentsFromWiring,
  type IbLink,
  type IbWiring,
  parseIbnetdiscover,
  wiringFromLinks,
} from "./ibnetdiscover.js";

export type IbFabric = { links: IbLink[]; wiring: IbWiring; found: DiscoveredTopology };

/** `nics`: the data HCAs in rail order (empty: every HCA that shows a switch, in name order). */
export function ibFabricFromText(text: string, source: string, nics: readonly string[]): IbFabric | string {
  const links = parseIbnetdiscover(text, source);
  if (typeof links === "string") return links;
  const wiring = wiringFromLinks(links);
  const { byNode, tier } = attachmentsFromWiring(wiring);
  const found = topologyFromAttachments(byNode, {
    nics: [...nics],
    tier,
    hint: 'each HCA\'s node description should read "<host> <device>" (the default on Linux hosts).',
  });
  if (typeof found === "string") return found;
  return { links, wiring, found: { ...found, notFound: [...wiring.notFound, ...found.notFound] } };
}
