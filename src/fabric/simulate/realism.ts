/**
 * What a real RoCE fabric does that a planner may not assume away. Each switch is a variant the evaluation scores
 * the planner on; the planner never imports this module (src/fabric/plan/import-graph.test.ts). Pure.
 */
import type { Flow, FlowPath } from "../model.js";

export type Realism = {
  /**
   * The NIC picks each QP's UDP source port (nccl-tests and NCCL have no setting for it): a test's requested
   * ports are ignored. Off: the ports a job asks for are used, as an idealised steerable fabric would.
   */
  nicPorts?: boolean;
  /** QPs per rail connection and direction (NCCL opens at least 2 channels per NIC, each its own QP). Default 1. */
  qpsPerConnection?: number;
  /** Leaves that hash with a seed the hash calculator (the trace) does not know. Default 0. */
  unknownSeedLeaves?: number;
  /**
   * All of a round's jobs start together, each after its own start-up skew, as a runner without barriers starts
   * them: the planner's waves are not kept apart.
   */
  noBarriers?: boolean;
  /**
   * Priority flow control spreading: a flow held back by a faulty spine port pauses the leaf uplink it came up
   * through, so other flows on that uplink slow down too (head-of-line blocking).
   */
  pfc?: boolean;
  /**
   * The path each flow takes, decided by the switches themselves rather than by the ECMP hash: on InfiniBand each
   * switch's linear forwarding table sends a destination LID out of one port, whatever the source port. Given, it
   * is both the truth and what the trace (the subnet manager's routes) reports.
   */
  forwarding?: (flow: Flow) => FlowPath;
  /**
   * A bad leaf uplink or spine port is a bad cable: it slows what both ends send (a lane down, a lower negotiated
   * speed on the link), not only what its own end sends (one dirty fibre, one failing laser). Off: one way.
   */
  bothWays?: boolean;
};

/** Start-up skew of jobs started together (scheduling, image pulls, sshd): uniform over this many seconds. */
export const START_SKEW_SECONDS = 10;

/**
 * RoCE v2 source port from the two QP numbers, as Linux computes it when no flow label is set: the flow label is
 * (lqpn × rqpn) folded to 20 bits, and its two halves XORed into the 14 low bits of a port in 0xC000–0xFFFF.
 * Primary source: `rdma_calc_flow_label` and `rdma_flow_label_to_udp_sport` in the kernel's
 * include/rdma/ib_verbs.h (https://github.com/torvalds/linux/blob/master/include/rdma/ib_verbs.h).
 */
export function roceSourcePort(lqpn: number, rqpn: number): number {
  let v = BigInt(lqpn >>> 0) * BigInt(rqpn >>> 0);
  v ^= v >> 20n;
  v ^= v >> 40n;
  const fl = Number(v & 0xfffffn);
  const low = (fl & 0x3fff) ^ ((fl & 0xfc000) >>> 14);
  return low | 0xc000;
}

/** A PFC pause on a link feeding a faulty hop: the fraction of time it still sends (half the fault's depth). */
export const pauseFactor = (faultFactor: number) => 0.5 + 0.5 * faultFactor;
