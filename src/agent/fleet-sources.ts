/** The glue between `fleet verify` and the agents' reports: read them, then say per node where its result came from. */
import type { KubeClients } from "../kube/api/client.js";
import type { FleetReport } from "../kube/fleet/analyse.js";
import { describeSources, judgeReports, listReports, type ReportRead } from "./fleet-reports.js";

/**
 * Reads the reports (none when maxAge is 0). A cluster where the caller may not list ConfigMaps in the namespace,
 * or has no agent, simply has no reports: every node is collected as before.
 */
export async function nodesFromReports(
  clients: KubeClients,
  namespace: string,
  nodes: readonly string[],
  maxAgeSeconds: number,
): Promise<{ read: ReportRead; line: string } | null> {
  if (maxAgeSeconds === 0) return null;
  let items: Awaited<ReturnType<typeof listReports>>;
  try {
    items = await listReports(clients, namespace);
  } catch (err) {
    // Not fatal: the pods still verify every node; but say why the reports were not used.
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    const read: ReportRead = {
      outcomes: [],
      toCollect: nodes.map((node) => ({ node, why: "no report" })),
      damaged: [],
    };
    return {
      read,
      line: `kube-rdma fleet: could not read the agents' reports (${why}); collecting every node with pods\n`,
    };
  }
  if (items.length === 0) return null;
  const read = judgeReports(items, nodes, maxAgeSeconds, new Date());
  return { read, line: describeSources(read, maxAgeSeconds) };
}

/** Sets `source` on each node of the fleet report: `report` (the agent's) or `pod` (collected now). */
export function markReportSources(report: FleetReport, read: ReportRead): void {
  const fromReport = new Set(read.outcomes.map((o) => o.node));
  for (const n of report.nodes) n.source = fromReport.has(n.node) ? "report" : "pod";
}
