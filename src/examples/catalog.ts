/** Registers every example host (imported by ./index.ts). */
import { buildHost, type HostSpec } from "./builder.js";
import { rail3OtherSubnetSpec } from "./fabric-variations.js";
import { POD_DIFFS } from "./pod.js";
import { registerExample } from "./registry.js";
import { seedSpec } from "./seed.js";
import type { HostTree } from "./tree.js";
import { bondSpec, h100Spec, ib8xHdrSpec, ipv6OnlySpec, SEED_DIFFS } from "./variations.js";

export const SEED_EXAMPLE = "a100-8x-roce";

function snapshotOf(spec: HostSpec, tree: HostTree) {
  return tree.toSnapshot({ host: spec.hostname });
}

function register(
  name: string,
  description: string,
  spec: () => HostSpec,
  change?: (t: HostTree) => void,
  later?: (t: HostTree) => void,
): void {
  const build = (more?: (t: HostTree) => void) => () => {
    const s = spec();
    const t = buildHost(s);
    change?.(t);
    more?.(t);
    return snapshotOf(s, t);
  };
  registerExample({ name, description, snapshot: build(), ...(later ? { later: build(later) } : {}) });
}

register(
  SEED_EXAMPLE,
  "the A100 RoCE example node: 8×A100 80GB, mlx5_0 management on eth0, mlx5_1..8 RoCE 200 Gb/s data NICs",
  seedSpec,
);
// Variations say what they are: the A100 RoCE example node with one difference (the name alone does not tell).
for (const [name, v] of Object.entries(SEED_DIFFS)) {
  const later = v.later;
  register(
    name,
    `the A100 RoCE example node, but ${v.description}`,
    seedSpec,
    (t) => t.apply(v.diff),
    later ? (t) => t.apply(later) : undefined,
  );
}
register("ib-8x-hdr", "8 InfiniBand HDR HCAs mlx5_0..7 (no netdevs), default route on a non-RDMA eth0", ib8xHdrSpec);
register("h100-18hca", "8×H100 with 18 HCAs: mlx5_0 management, mlx5_1..17 400 Gb/s RoCE data NICs", () => h100Spec());
register(
  "ipv6-only",
  "the A100 RoCE example node on an IPv6-only RoCE fabric: data NICs mlx5_1..8 on rails fd00:10:0:1::/64 … fd00:10:0:8::/64, no IPv4 address",
  ipv6OnlySpec,
);
register(
  "rail-3-other-subnet",
  "the A100 RoCE example node, but rail 3 (mlx5_4 on eth4) addressed on 25.11.129.96/27 instead of 25.11.128.96/27: passes alone, RAIL_SUBNET_MISMATCH in fleet verify --rail-addressing l2",
  rail3OtherSubnetSpec,
);
register(
  "bond-management",
  "the A100 RoCE example node, but management is the RoCE LAG mlx5_bond_0 on bond0 (eth0+eth1); data NICs mlx5_2..9",
  bondSpec,
);
for (const [name, v] of Object.entries(POD_DIFFS)) register(name, v.description, seedSpec, (t) => t.apply(v.diff));
