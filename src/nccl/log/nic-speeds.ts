/**
 * The port speeds NCCL itself found (`NET/IB: [3] mlx5_4:uverbs4:1/RoCE provider=Mlx5 speed=100000 …`, NCCL ≥ 2.20 with
 * NCCL_DEBUG_SUBSYS including NET): a port slower than the others NCCL uses bounds every ring through it, whatever
 * the node check said when it ran. Pure.
 */
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { NCCL_LOG_FINDINGS as F } from "./catalogue.js";
import type { LogState } from "./state.js";

export type SlowNic = { host: string; device: string; gbps: number };

/** The speed most ports run at (the higher one on a tie), in Mb/s; null when NCCL printed none. */
function usualSpeed(speeds: Iterable<number>): number | null {
  const count = new Map<number, number>();
  for (const v of speeds) count.set(v, (count.get(v) ?? 0) + 1);
  let best: [number, number] | null = null;
  for (const [speed, n] of count) if (!best || n > best[1] || (n === best[1] && speed > best[0])) best = [speed, n];
  return best?.[0] ?? null;
}

/** The ports slower than the usual speed, by host then device. */
export function slowNics(nicSpeeds: ReadonlyMap<string, number>): { slow: SlowNic[]; usualGbps: number | null } {
  const usual = usualSpeed(nicSpeeds.values());
  if (usual === null) return { slow: [], usualGbps: null };
  const slow: SlowNic[] = [];
  for (const [key, speed] of nicSpeeds) {
    if (speed >= usual) continue;
    const tab = key.indexOf("\t");
    slow.push({ host: key.slice(0, tab), device: key.slice(tab + 1), gbps: speed / 1000 });
  }
  slow.sort((a, b) => naturalCompare(a.host, b.host) || naturalCompare(a.device, b.device));
  return { slow, usualGbps: usual / 1000 };
}

/**
 * The NIC ports per node and the speed most of them run at, as NCCL found them: what the hardware lets a multi-node
 * run reach when no node model says it. The most common count of ports per host (the larger on a tie).
 */
export function nicsPerNode(nicSpeeds: ReadonlyMap<string, number>): { perNode: number; gbps: number } | null {
  const usual = usualSpeed(nicSpeeds.values());
  if (usual === null) return null;
  const perHost = new Map<string, number>();
  for (const key of nicSpeeds.keys()) {
    const host = key.slice(0, key.indexOf("\t"));
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
  }
  return { perNode: usualSpeed(perHost.values())!, gbps: usual / 1000 };
}

export function nicSpeedFindings(st: LogState): Finding[] {
  const { slow, usualGbps } = slowNics(st.nicSpeeds);
  if (slow.length === 0 || usualGbps === null) return [];
  const hosts = new Set(slow.map((n) => n.host));
  const subject = hosts.size === 1 && slow[0]!.host !== "" ? slow[0]!.host : "log";
  return [
    makeFinding(F, "NCCL_LOG_NIC_SLOW", subject, {
      slow: slow.slice(0, 64),
      slowCount: slow.length,
      usualGbps,
      ports: st.nicSpeeds.size,
    }),
  ];
}
