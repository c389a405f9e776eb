/**
 * The agent's Prometheus metrics, on its own registry. Gauges are set from each run: the node's readiness, its
 * findings by code and severity, each port's state, rate and error counters, and when the last run was and how
 * long it took. Names follow the Prometheus naming guide (https://prometheus.io/docs/practices/naming/): base
 * units, `_total` only for counters the process counts itself.
 */
import { Gauge, Registry } from "prom-client";
import type { NodeInventory } from "../inventory/types.js";
import type { AgentPlan } from "./plan.js";

export type AgentMetrics = {
  registry: Registry;
  record(plan: AgentPlan, inv: NodeInventory | undefined, seconds: number): void;
};

export function createAgentMetrics(node: string): AgentMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ node });
  const g = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const ready = g("kube_rdma_node_ready", "1 when RDMAReady is True, 0 when False, -1 when Unknown");
  const findings = g("kube_rdma_findings", "Findings of the last run, by code and severity", ["code", "severity"]);
  const portUp = g("kube_rdma_port_active", "1 when the port is ACTIVE and LinkUp", ["hca", "port", "role"]);
  const rate = g("kube_rdma_port_rate_gbps", "The port's rate in Gb/s", ["hca", "port"]);
  const counter = g("kube_rdma_port_counter", "A port error counter as the kernel reports it", [
    "hca",
    "port",
    "counter",
  ]);
  const lastRun = g("kube_rdma_last_run_timestamp_seconds", "When the last run ended (Unix time)");
  const duration = g("kube_rdma_last_run_duration_seconds", "How long the last run took");
  return {
    registry,
    record(plan, inv, seconds) {
      const s = plan.condition.status;
      ready.set(s === "True" ? 1 : s === "False" ? 0 : -1);
      findings.reset();
      const counts = new Map<string, number>();
      for (const f of plan.report.findings) {
        const k = `${f.code}\u0000${f.severity}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      for (const [k, n] of counts) {
        const [code, severity] = k.split("\u0000") as [string, string];
        findings.set({ code, severity }, n);
      }
      if (inv) {
        portUp.reset();
        rate.reset();
        counter.reset();
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
            if (p.rateGbps !== null) rate.set(labels, p.rateGbps);
            for (const [name, v] of Object.entries(p.counters)) counter.set({ ...labels, counter: name }, v);
          }
        }
      }
      lastRun.set(Date.now() / 1000);
      duration.set(seconds);
    },
  };
}
