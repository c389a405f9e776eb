import { finding } from "../../checks/catalogue.js";
import type { Finding } from "../../core/finding.js";
import { parseShowGids } from "../../parse/show-gids.js";
import { evaluateGids } from "../gids.js";
import type { AnalyzerKind } from "../types.js";
import { anyLine, lineShare, outcomeOf } from "./outcome.js";

const HEADER = /^[ \t]*DEV[ \t]+PORT[ \t]+INDEX[ \t]+GID\b/;
const FOOTER = /^[ \t]*n_gids_found=\d+[ \t]*$/;
const ROW = /^[ \t]*[A-Za-z][\w.-]*[ \t]+\d+[ \t]+\d+[ \t]+[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}([ \t]|$)/;

export const showGidsAnalyzer: AnalyzerKind = {
  kind: "show_gids",
  detect(head) {
    if (anyLine(head, HEADER)) return 0.95;
    const rows = lineShare(head, ROW);
    if (anyLine(head, FOOTER)) return Math.max(0.9, rows);
    return rows >= 0.5 ? 0.6 + rows * 0.3 : rows;
  },
  analyze(text, ctx) {
    return outcomeOf(parseShowGids(text), (value) => {
      if (value.gids.length === 0) {
        return { findings: [finding("GID_TABLE_EMPTY", "node", { hca: null })], summary: "no GIDs" };
      }
      const judged = evaluateGids(value.gids, ctx);
      if (value.complete || value.lastDevice === null) return judged;
      return { ...judged, findings: judged.findings.map((f) => hedgeCut(f, value.lastDevice!, value.nGidsFound)) };
    });
  },
};

/** Findings that rest on a GID being absent, which a cut-off paste cannot prove for the device it was cut at. */
const ABSENCE_CODES = new Set(["NO_ROCEV2_GID", "GID_LINK_LOCAL_ONLY"]);

/**
 * A capture without its `n_gids_found=N` footer (or with a count that disagrees) may end mid-table: an absence
 * finding about its last device is kept as a low-confidence warning, not an error about a GID that was only cut off.
 */
export function hedgeCut(f: Finding, lastDevice: string, nGidsFound: number | null): Finding {
  const about = f.subject === lastDevice || f.subject.startsWith(`${lastDevice}/`);
  if (!about || !ABSENCE_CODES.has(f.code)) return f;
  const why =
    nGidsFound === null
      ? "the capture ends at this device without the n_gids_found=N footer"
      : `the footer's n_gids_found=${nGidsFound} does not match the rows read`;
  return {
    ...f,
    severity: f.severity === "error" ? "warning" : f.severity,
    confidence: { level: "low", why: [why] },
    message: `${f.message} Uncertain: ${why}, so its remaining GIDs may only have been cut off.`,
    fix: `Paste the whole show_gids output (it ends with n_gids_found=N), or run \`kube-rdma gids\` on the node; if the GID is still missing: ${f.fix}`,
  };
}
