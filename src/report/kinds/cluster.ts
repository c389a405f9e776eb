import { summarize } from "../../core/finding.js";
import type { ClusterEvaluation } from "../../kube/cluster/evaluate.js";
import { renderClusterText } from "../../kube/cluster/render.js";
import { defineReport } from "../registry.js";

export type ClusterResult = { ev: ClusterEvaluation; context: string; server: string; strict: boolean };

/** `cluster`: the cluster's GPU+RDMA nodes, device plugins, schedulers and operators. */
export const CLUSTER_REPORT = defineReport<ClusterResult>({
  name: "cluster",
  text: ({ ev, context, server, strict }) => renderClusterText(ev, `Cluster ${server} (context ${context})`, strict),
  structured: ({ ev, context, server, strict }) => {
    const { status, errors, warnings } = summarize(ev.findings, strict);
    return {
      schemaVersion: 1,
      context,
      server,
      nodes: ev.nodes,
      components: ev.components,
      crds: ev.crds,
      findings: ev.findings.map(({ code, severity, subject, message, fix, evidence }) => ({
        code,
        severity,
        subject,
        message,
        fix,
        evidence,
      })),
      summary: { status, errors, warnings },
    };
  },
});
