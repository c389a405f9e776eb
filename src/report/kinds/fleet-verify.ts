import { summarize } from "../../core/finding.js";
import type { FleetReport } from "../../kube/fleet/analyse.js";
import { renderFleetText } from "../../kube/fleet/render.js";
import { defineReport } from "../registry.js";

/** `fleet verify`: the fleet report, with the cluster context and the collector run it came from. */
export type FleetVerifyResult = {
  report: FleetReport;
  strict: boolean;
  context: string;
  run: {
    id: string;
    namespace: string;
    image: string;
    podsDeleted: number;
    podsLeft: string[];
    interrupted: boolean;
    /** Nodes judged from their agent's report, and nodes collected by this run's pods. */
    fromReports?: number;
    collected?: number;
    /** `--from-snapshots DIR`: the directory the nodes' saved snapshots were read from (no cluster, no pods). */
    fromSnapshots?: string;
    /** Nodes answered without a pod because the API server says their kubelet is not Ready. */
    notReady?: number;
  };
};

export const FLEET_VERIFY_REPORT = defineReport<FleetVerifyResult>({
  name: "fleet verify",
  text: ({ report, strict }) => renderFleetText(report, strict),
  structured: ({ report, strict, context, run }) => {
    const { status, errors, warnings } = summarize(report.findings, strict);
    return {
      schemaVersion: 1,
      context,
      run,
      nodes: report.nodes.map((n) => ({ ...n, findings: n.findings.map(({ evidence: _e, ...f }) => f) })),
      consistency: report.consistency.attributes,
      rails: report.rails.rails,
      failedNodes: report.failedNodes,
      findings: report.findings.map(({ evidence: _e, ...f }) => f),
      summary: { status, errors, warnings },
    };
  },
  html: () => import("../html/pages/fleet-verify.js"),
});
