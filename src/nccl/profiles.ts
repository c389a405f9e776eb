/**
 * Profiles: which tuning values go beside the variables NCCL cannot find by itself (NCCL_IB_HCA, the GID where
 * needed, the socket interface, the traffic class). Those are derived from the node in every profile; a profile
 * only decides the tuning on top, and every tuning value assumes something about the fabric that no host shows, so
 * its reason names that assumption:
 *
 * - `derived` (default): NCCL's own behaviour plus only what the node proves; no tuning variable is set.
 * - `minimal`: the same as `derived` (kept so existing configurations keep working).
 * - `roce-ecmp`: a multi-tier RoCE fabric whose switches hash flows onto paths with ECMP: 4 queue pairs per
 *   connection for routing entropy (RoCE ports only), round-robin over them on NCCL 2.18/2.19.
 * - `reference`: the values the reference RDMA training platform injects into every RDMA pod (IB timeout 22,
 *   8 QPs per connection on every fabric, NCCL_DEBUG=INFO), each with the fabric condition it assumes.
 */
import type { DataPort } from "./data-ports.js";
import type { EnvEntry } from "./gid-select.js";
import { atLeast, defaultIbTimeout, formatNcclVersion, hasQpsPerConnection, type NcclVersion } from "./version.js";

export const NCCL_ENV_PROFILES = ["derived", "minimal", "roce-ecmp", "reference"] as const;
export type NcclEnvProfile = (typeof NCCL_ENV_PROFILES)[number];
export const DEFAULT_NCCL_ENV_PROFILE: NcclEnvProfile = "derived";

export const PROFILE_HELP =
  "derived (default: NCCL's own behaviour plus what the node proves; no tuning variable), minimal (the same), " +
  "roce-ecmp (a multi-tier RoCE fabric hashing flows with ECMP: NCCL_IB_QPS_PER_CONNECTION=4 on RoCE ports, " +
  "NCCL_IB_SPLIT_DATA_ON_QPS=0 for NCCL 2.18/2.19), reference (the values RDMA training platforms commonly inject: " +
  "NCCL_IB_TIMEOUT=22, NCCL_IB_QPS_PER_CONNECTION=8 on every fabric, NCCL_DEBUG=INFO)";

/** The reference platform's injected values (tech-spec: the platform's NCCL variable table). */
export const PLATFORM_IB_TIMEOUT = 22;
export const PLATFORM_QPS_PER_CONNECTION = 8;
/** Queue pairs per connection of the roce-ecmp profile: entropy for ECMP at a quarter of the reference's QP cost. */
export const ECMP_QPS_PER_CONNECTION = 4;

type Context = {
  ports: readonly DataPort[];
  version: NcclVersion | null;
  /** Variables deliberately left unset, with the reason. */
  unset: Record<string, string>;
};

/** The tuning entries of a profile for the data ports; records deliberately unset variables in `ctx.unset`. */
export function profileEntries(profile: NcclEnvProfile, ctx: Context): EnvEntry[] {
  if (profile === "derived" || profile === "minimal") return ownBehaviour(ctx);
  if (profile === "roce-ecmp") return roceEcmpEntries(ctx);
  return referenceEntries(ctx);
}

function ownTimeoutText(version: NcclVersion | null): string {
  const own = defaultIbTimeout(version);
  return own === null ? "20 since 2.23, 18 in 2.14–2.22" : `${own} in NCCL ${formatNcclVersion(version!)}`;
}

// NCCL_IB_TIMEOUT: the QP's local ACK timeout is 4.096 µs × 2^value, and NCCL_IB_RETRY_CNT (default 7) retries
// follow the first try: NCCL's own 20 waits about 30 s in all, 18 about 7.5 s (NCCL environment variables:
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout; docs/userguide/source/env.rst).
function ownBehaviour({ version, unset }: Context): EnvEntry[] {
  unset.NCCL_IB_TIMEOUT =
    `left at NCCL's own default (${ownTimeoutText(version)}), which already rides out a link that is down for ` +
    "seconds (4.096 µs × 2^timeout per try, 7 retries); a longer timeout assumes links that flap for longer and " +
    "delays noticing a dead peer (--profile reference sets 22)";
  if (hasQpsPerConnection(version)) {
    unset.NCCL_IB_QPS_PER_CONNECTION =
      "left at NCCL's default (1): more queue pairs help only a multi-tier fabric that hashes flows onto paths (ECMP), " +
      "which no host shows, and multiply the queue pairs and their memory per connection (--profile roce-ecmp " +
      "assumes such a RoCE fabric)";
  }
  return [];
}

// NCCL_IB_SPLIT_DATA_ON_QPS: split mode (1) "may cause a visible latency degradation if many QPs are used"; it was
// the default in 2.18 and 2.19, round-robin (0) since 2.20; before 2.18 the variable does not exist (NCCL
// environment variables, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-split-data-on-qps;
// the default changed 1 → 0 in NVIDIA/nccl v2.20.3-1, src/transport/net_ib.cc).
function splitDataEntry(version: NcclVersion | null): EnvEntry | null {
  const splitByDefault = version === null || (atLeast(version, 2, 18) && !atLeast(version, 2, 20));
  if (!splitByDefault) return null;
  return {
    name: "NCCL_IB_SPLIT_DATA_ON_QPS",
    value: "0",
    reason:
      (version === null ? "the NCCL version is not known: " : `NCCL ${formatNcclVersion(version)} `) +
      "splits every message over all queue pairs by default in 2.18 and 2.19, which NCCL warns costs latency with " +
      "many queue pairs; 0 uses them round-robin, NCCL's default since 2.20",
  };
}

// More queue pairs per connection give ECMP more 5-tuples to hash onto a RoCE fabric's paths: "useful on
// multi-level fabrics which need multiple queue pairs to have good routing entropy" (NCCL_IB_QPS_PER_CONNECTION,
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection).
function roceEcmpEntries(ctx: Context): EnvEntry[] {
  const { ports, version, unset } = ctx;
  ownBehaviour(ctx);
  if (!hasQpsPerConnection(version)) return [];
  if (!ports.some((p) => p.port.linkLayer === "Ethernet")) {
    unset.NCCL_IB_QPS_PER_CONNECTION =
      "left at NCCL's default (1): profile roce-ecmp tunes RoCE ports, and this node's data ports are InfiniBand";
    return [];
  }
  delete unset.NCCL_IB_QPS_PER_CONNECTION;
  const out: EnvEntry[] = [
    {
      name: "NCCL_IB_QPS_PER_CONNECTION",
      value: String(ECMP_QPS_PER_CONNECTION),
      reason:
        `${ECMP_QPS_PER_CONNECTION} queue pairs per connection (NCCL's default is 1) give the switches more flows to ` +
        "hash: assumes a multi-tier RoCE fabric with ECMP (profile roce-ecmp); costs 4× the queue pairs and their " +
        "memory per connection",
    },
  ];
  const split = splitDataEntry(version);
  if (split) out.push(split);
  return out;
}

function referenceEntries({ ports, version }: Context): EnvEntry[] {
  const perTry = (4.096e-6 * 2 ** PLATFORM_IB_TIMEOUT).toFixed(0);
  const out: EnvEntry[] = [
    {
      name: "NCCL_IB_TIMEOUT",
      value: String(PLATFORM_IB_TIMEOUT),
      reason:
        `ACK timeout 4.096 µs × 2^${PLATFORM_IB_TIMEOUT} ≈ ${perTry} s per try: assumes links that flap for longer ` +
        `than NCCL's own default rides out (${ownTimeoutText(version)}); the cost: a dead peer is noticed only ` +
        `after about 2 minutes (${perTry} s × 7 retries of NCCL_IB_RETRY_CNT), and a hung job says nothing until then`,
    },
  ];
  if (hasQpsPerConnection(version)) {
    const roce = ports.some((p) => p.port.linkLayer === "Ethernet");
    out.push({
      name: "NCCL_IB_QPS_PER_CONNECTION",
      value: String(PLATFORM_QPS_PER_CONNECTION),
      reason: roce
        ? `${PLATFORM_QPS_PER_CONNECTION} queue pairs per connection, the value RDMA training platforms commonly ` +
          "inject: assumes a multi-tier RoCE fabric with ECMP that needs the routing entropy; costs 8× the queue " +
          "pairs and their memory per connection (NCCL's default is 1)"
        : "the value RDMA training platforms commonly inject on every fabric; on InfiniBand it gains nothing " +
          "(adaptive routing already spreads a connection over the fabric's paths) and costs queue pairs and memory " +
          "per connection",
    });
    const split = splitDataEntry(version);
    if (split) out.push(split);
  }
  out.push({
    name: "NCCL_IB_DISABLE",
    value: "0",
    reason: "the platform's explicit choice of the IB verbs (RDMA) transport; 0 is also NCCL's default",
  });
  // NCCL_DEBUG=INFO prints, once per rank at start-up, the transport and the NICs chosen ("NET/IB : Using …",
  // "via NET/IB/0/GDRDMA"): https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug
  out.push({
    name: "NCCL_DEBUG",
    value: "INFO",
    reason:
      "every rank logs, once at start-up, the transport and the NICs NCCL chose (what `kube-rdma analyze` reads to " +
      "prove RDMA and GPUDirect); the cost is a few hundred lines per rank at start-up",
  });
  return out;
}
