import { makeFinding } from "../../core/finding.js";
import { parseShowGids } from "../../parse/show-gids.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
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
        return { findings: [makeFinding(C, "GID_TABLE_EMPTY", "node", {})], summary: "no GIDs" };
      }
      return evaluateGids(value.gids, ctx);
    });
  },
};
