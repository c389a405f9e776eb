/**
 * The agent's Prometheus metrics, on its own registry. They say what the agent judged and what it did, not the
 * kernel's raw counters (those are node_exporter's InfiniBand collector's job): the RDMAReady state, the findings by
 * code and severity and by HCA, each port's state and rate, the quarantined HCAs, and the agent's own work as
 * counters (runs, failures, API errors, events, quarantines, releases, held taints). Names follow the Prometheus
 * naming guide (https://prometheus.io/docs/practices/naming/): `_total` on counters, base units (seconds,
 * bits per second), one unit per metric, bounded label sets, and no `node` label: the node comes from the scrape
 * target (Kubernetes service discovery relabels `__meta_kubernetes_pod_node_name`), and a `node` label of our own
 * would collide with it. `kube_rdma_build_info{version}` is the usual info metric.
 */
import { Counter, Gauge, Registry } from "prom-client";
import { VERSION } from "../cli/version.js";
import type { QuarantineStep } from "./quarantine-step.js";
import type { OnceResult } from "./run.js";

export type AgentMetrics = {
  registry: Registry;
  /** A run that completed (its API writes went through). */
  record(r: OnceResult, seconds: number): void;
  /** A run whose API calls failed; its quarantine decision, when it got that far, still counts. */
  failed(step: QuarantineStep | null, seconds: number): void;
};

const STATUSES = ["True", "False", "Unknown"] as const;

export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  gauge("kube_rdma_build_info", "The agent's version, as a label; always 1", ["version"]).set({ version: VERSION }, 1);
  const ready = gauge("kube_rdma_rdma_ready", "1 for the RDMAReady status of the last run, 0 for the others", [
    "status",
  ]);
  const findings = gauge("kube_rdma_findings", "Findings of the last run, by code and severity", ["code", "severity"]);
  const hcaFindings = gauge("kube_rdma_hca_findings", "Findings of the last run about each HCA, by severity", [
    "hca",
    "severity",
  ]);
  const portUp = gauge("kube_rdma_port_active", "1 when the port is ACTIVE and LinkUp, 0 otherwise", [
    "hca",
    "port",
    "role",
  ]);
  const rate = gauge("kube_rdma_port_rate_bits_per_second", "The port's link rate in bits per second", ["hca", "port"]);
  const quarantined = gauge("kube_rdma_hca_quarantined", "1 while the HCA is quarantined (withdrawn from new pods)", [
    "hca",
  ]);
  const quarantines = counter("kube_rdma_hca_quarantines_total", "HCAs put in quarantine", ["hca"]);
  const releases = counter("kube_rdma_hca_releases_total", "HCAs released from quarantine", ["hca"]);
  const runs = counter("kube_rdma_agent_runs_total", "Runs of the agent, completed or not");
  const failures = counter("kube_rdma_agent_run_failures_total", "Runs that did not complete, by stage (check, api)", [
    "stage",
  ]);
  const events = counter("kube_rdma_agent_events_total", "Events written on the Node, by type", ["type"]);
  const held = counter(
    "kube_rdma_agent_taints_held_total",
    "Runs in which a failing node was not tainted because the breaker held it back",
  );
  const lastRun = gauge("kube_rdma_last_run_timestamp_seconds", "When the last run ended (Unix time)");
  const duration = gauge("kube_rdma_last_run_duration_seconds", "How long the last run took");
  for (const stage of ["check", "api"]) failures.inc({ stage }, 0);
  for (const type of ["Warning", "Normal"]) events.inc({ type }, 0);

  const quarantineStep = (step: QuarantineStep) => {
    for (const hca of step.quarantined) {
      quarantines.inc({ hca });
      quarantined.set({ hca }, 1);
    }
    for (const hca of step.released) {
      releases.inc({ hca });
      quarantined.set({ hca }, 0);
    }
  };
  const ran = (seconds: number) => {
    runs.inc();
    lastRun.set(Date.now() / 1000);
    duration.set(seconds);
  };

  return {
    registry,
    record(r, seconds) {
      ran(seconds);
      const { plan, inventory: inv } = r;
      for (const s of STATUSES) ready.set({ status: s }, plan.condition.status === s ? 1 : 0);
      if (r.quarantine === null) failures.inc({ stage: "check" });
      findings.reset();
      hcaFindings.reset();
      const hcas = new Set(inv?.hcas.map((h) => h.name) ?? []);
      for (const f of plan.report.findings) {
        findings.inc({ code: f.code, severity: f.severity });
        const hca = f.subject.split("/")[0] ?? "";
        if (hcas.has(hca)) hcaFindings.inc({ hca, severity: f.severity });
      }
      for (const e of plan.events) events.inc({ type: e.type });
      if (r.heldWhy !== undefined) held.inc();
      quarantineStep(r.quarantineStep);
      if (inv) {
        portUp.reset();
        rate.reset();
        const role = new Map<string, string>();
        for (const h of inv.roles.dataHcas) role.set(h, "data");
        if (inv.roles.managementHca) role.set(inv.roles.managementHca, "management");
        for (const h of inv.hcas) {
          for (const p of h.ports) {
            const labels = { hca: h.name, port: String(p.port) };
            portUp.set(
              { ...labels, role: role.get(h.name) ?? "other" },
              p.state === "ACTIVE" && p.physState === "LinkUp" ? 1 : 0,
            );
            if (p.rateGbps !== null) rate.set(labels, p.rateGbps * 1e9);
          }
        }
      }
    },
    failed(step, seconds) {
      ran(seconds);
      failures.inc({ stage: "api" });
      if (step) quarantineStep(step);
    },
  };
}
