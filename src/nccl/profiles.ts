/**
 * Profiles: which tuning values go beside the variables NCCL cannot find by itself (NCCL_IB_HCA, the GID, the
 * socket interface, the traffic class). Those are derived from the node in every profile; a profile only decides
 * the platform tuning on top:
 *
 * - `derived` (default): what this node's fabric justifies — a longer IB timeout, more QPs only on RoCE.
 * - `reference`: the values the reference RDMA training platform injects into every RDMA pod (IB timeout 22,
 *   8 QPs per connection on every fabric, NCCL_DEBUG=INFO), each with an honest reason, also where it gains nothing.
 * - `minimal`: nothing beyond what NCCL cannot find itself; every tuning variable stays at NCCL's own default.
 */
import type { DataPort } from "./data-ports.js";
import type { EnvEntry } from "./gid-select.js";
import { defaultIbTimeout, formatNcclVersion, hasQpsPerConnection, type NcclVersion } from "./version.js";

export const NCCL_ENV_PROFILES = ["derived", "reference", "minimal"] as const;
export type NcclEnvProfile = (typeof NCCL_ENV_PROFILES)[number];
export const DEFAULT_NCCL_ENV_PROFILE: NcclEnvProfile = "derived";

export const PROFILE_HELP =
  "derived (default: the tuning this node's fabric justifies), reference (the values RDMA training platforms " +
  "commonly inject: NCCL_IB_TIMEOUT=22, NCCL_IB_QPS_PER_CONNECTION=8 on every fabric, NCCL_DEBUG=INFO), minimal " +
  "(only what NCCL cannot find itself; tuning left at NCCL's defaults)";

/** The reference platform's injected values (tech-spec: the platform's NCCL variable table). */
export const PLATFORM_IB_TIMEOUT = 22;
export const PLATFORM_QPS_PER_CONNECTION = 8;

type Context = {
  ports: readonly DataPort[];
  version: NcclVersion | null;
  /** Variables deliberately left unset, with the reason. */
  unset: Record<string, string>;
};

/** The tuning entries of a profile for the data ports; records deliberately unset variables in `ctx.unset`. */
export function profileEntries(profile: NcclEnvProfile, ctx: Context): EnvEntry[] {
  if (profile === "minimal") return minimalEntries(ctx);
  const out: EnvEntry[] = [ibTimeoutEntry(ctx.version)];
  const qps = qpsEntry(profile, ctx);
  if (qps) out.push(qps);
  out.push({
    name: "NCCL_IB_DISABLE",
    value: "0",
    reason: "use the IB verbs (RDMA) transport on the data HCAs; 1 would force TCP sockets",
  });
  if (profile === "reference") {
    // NCCL_DEBUG=INFO prints, once per rank at start-up, the transport and the NICs chosen ("NET/IB : Using …",
    // "via NET/IB/0/GDRDMA"): https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-debug
    out.push({
      name: "NCCL_DEBUG",
      value: "INFO",
      reason:
        "every rank logs, once at start-up, the transport and the NICs NCCL chose (what `kube-rdma analyze` reads to " +
        "prove RDMA and GPUDirect); the cost is a few hundred lines per rank at start-up",
    });
  }
  return out;
}

function ownTimeoutText(version: NcclVersion | null): string {
  const own = defaultIbTimeout(version);
  return own === null ? "20 since 2.23, 18 in 2.14–2.22" : `${own} in NCCL ${formatNcclVersion(version!)}`;
}

// NCCL_IB_TIMEOUT: the QP's local ACK timeout is 4.096 µs × 2^value, and NCCL_IB_RETRY_CNT (default 7) retries
// follow the first try (NCCL environment variables:
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout).
function ibTimeoutEntry(version: NcclVersion | null): EnvEntry {
  const perTry = (4.096e-6 * 2 ** PLATFORM_IB_TIMEOUT).toFixed(0);
  return {
    name: "NCCL_IB_TIMEOUT",
    value: String(PLATFORM_IB_TIMEOUT),
    reason:
      `ACK timeout 4.096 µs × 2^${PLATFORM_IB_TIMEOUT} ≈ ${perTry} s per try, so a link that flaps for seconds does ` +
      `not end the job; the cost: a dead peer is noticed only after about 2 minutes (${perTry} s × 7 retries of ` +
      `NCCL_IB_RETRY_CNT), and a hung job says nothing until then (NCCL's own default: ${ownTimeoutText(version)})`,
  };
}

// More queue pairs per connection give ECMP more 5-tuples to hash onto a RoCE fabric's paths. InfiniBand routes
// each packet adaptively and gains nothing (NCCL_IB_QPS_PER_CONNECTION, NCCL environment variables:
// https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-qps-per-connection).
function qpsEntry(profile: NcclEnvProfile, { ports, version, unset }: Context): EnvEntry | null {
  if (!hasQpsPerConnection(version)) return null;
  const roce = ports.some((p) => p.port.linkLayer === "Ethernet");
  if (roce) {
    return {
      name: "NCCL_IB_QPS_PER_CONNECTION",
      value: String(PLATFORM_QPS_PER_CONNECTION),
      reason:
        `${PLATFORM_QPS_PER_CONNECTION} queue pairs per connection spread each connection over more ECMP paths of the ` +
        "RoCE fabric (NCCL's default is 1)",
    };
  }
  if (profile === "reference") {
    return {
      name: "NCCL_IB_QPS_PER_CONNECTION",
      value: String(PLATFORM_QPS_PER_CONNECTION),
      reason:
        "the value RDMA training platforms commonly inject on every fabric; on InfiniBand it gains nothing (adaptive routing already " +
        "spreads a connection over the fabric's paths) and costs queue pairs and memory per connection",
    };
  }
  unset.NCCL_IB_QPS_PER_CONNECTION =
    "left at NCCL's default (1) on InfiniBand: adaptive routing already spreads a connection over the fabric's paths";
  return null;
}

function minimalEntries({ version, unset }: Context): EnvEntry[] {
  unset.NCCL_IB_TIMEOUT = `left at NCCL's own default (${ownTimeoutText(version)}): profile minimal`;
  if (hasQpsPerConnection(version)) {
    unset.NCCL_IB_QPS_PER_CONNECTION = "left at NCCL's default (1): profile minimal";
  }
  return [];
}
