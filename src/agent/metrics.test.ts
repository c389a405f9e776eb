/**
 * The agent's and the device plugin's metrics read as Prometheus reads them (the text exposition format:
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format) and checked against the naming
 * rules (https://prometheus.io/docs/practices/naming/): counters end in `_total`, base units (seconds, bytes,
 * bits per second) written in the name, no metric both a counter and a gauge, a bounded number of series per node,
 * and no `node` label (Kubernetes service discovery adds the node from the target:
 * https://prometheus.io/docs/prometheus/latest/configuration/configuration/#kubernetes_sd_config).
 */
import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { createMetrics } from "../device-plugin/metrics.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { createAgentMetrics } from "./metrics.js";
import type { AgentSettings } from "./plan.js";
import { runOnce } from "./run.js";

type Family = { name: string; type: string; series: { labels: Record<string, string>; value: number }[] };

/** The text format → metric families (HELP/TYPE lines and samples), as a scraper parses it. */
function parseExposition(text: string): Family[] {
  const families = new Map<string, Family>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      families.set(type[1]!, { name: type[1]!, type: type[2]!, series: [] });
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const family = [...families.values()].find((f) => m[1] === f.name || m[1]!.startsWith(`${f.name}_`));
    if (!family) throw new Error(`a sample without its TYPE line: ${line}`);
    family.series.push({ labels, value: Number(m[3]) });
  }
  return [...families.values()];
}

/** Unit words the naming guide replaces by base units. */
const NOT_BASE_UNITS = /(gbps|mbps|kbps|_ms$|_ms_|millis|micros|_kb$|_mb$|_gb$|kib|mib|gib|minutes|hours|percent)/;

function checkRules(families: Family[], maxSeries: number): string[] {
  const broken: string[] = [];
  let series = 0;
  for (const f of families) {
    series += f.series.length;
    if (f.type === "counter" && !f.name.endsWith("_total")) broken.push(`${f.name}: a counter without _total`);
    if (f.type !== "counter" && f.name.endsWith("_total")) broken.push(`${f.name}: _total on a ${f.type}`);
    if (NOT_BASE_UNITS.test(f.name)) broken.push(`${f.name}: not in base units`);
    if (!/^kube_rdma_[a-z0-9_]+$/.test(f.name)) broken.push(`${f.name}: not in the kube_rdma_ namespace`);
    if (f.name.endsWith("_info") && !f.series.every((s) => s.value === 1)) broken.push(`${f.name}: info not 1`);
    for (const s of f.series) if ("node" in s.labels) broken.push(`${f.name}: a node label`);
  }
  if (series > maxSeries) broken.push(`${series} series, more than ${maxSeries}`);
  return broken;
}

const settings: AgentSettings = { namespace: "kube-rdma", heartbeatSeconds: 1200, taint: null };

describe("metrics by the Prometheus naming rules", () => {
  test("the agent's exposition after a failing run: counters _total, base units, no node label, bounded series", async () => {
    const metrics = createAgentMetrics();
    for (const example of ["port-errors", "port-down", "a100-8x-roce"]) {
      const r = await runOnce({
        node: "gpu-n1",
        read: () => readInventory(new SnapshotHostReader(exampleSnapshot(example), example)),
        settings,
        withinGrace: () => false,
        cluster: null,
        source: "test",
      });
      metrics.record(r, 0.2);
      const families = parseExposition(await metrics.registry.metrics());
      // 9 HCAs of one port each: the series grow with HCAs and finding codes, not with kernel counters.
      expect(checkRules(families, 120)).toEqual([]);
    }
    const families = parseExposition(await metrics.registry.metrics());
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.get("kube_rdma_build_info")?.series[0]?.labels.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(byName.get("kube_rdma_agent_runs_total")?.series[0]?.value).toBe(3);
    expect(byName.get("kube_rdma_port_rate_bits_per_second")?.series.every((s) => s.value >= 1e9)).toBe(true);
    // Each state of RDMAReady is its own series, 1 for the current one (no -1 for Unknown).
    expect(byName.get("kube_rdma_rdma_ready")?.series.map((s) => [s.labels.status, s.value])).toEqual([
      ["True", 1],
      ["False", 0],
      ["Unknown", 0],
    ]);
    expect(byName.has("kube_rdma_port_counter")).toBe(false);
  });

  test("the device plugin's exposition follows the same rules", async () => {
    const m = createMetrics("rdma/hca");
    m.allocations.inc();
    m.portFlaps.inc({ hca: "mlx5_3" });
    m.withdrawn.set({ hca: "mlx5_3" }, 1);
    m.devices.set({ health: "Healthy" }, 9);
    expect(checkRules(parseExposition(await m.registry.metrics()), 60)).toEqual([]);
  });
});
