import { makeFinding } from "../../core/finding.js";
import { parseShowGids } from "../../parse/show-gids.js";
import { ANALYZE_CATALOGUE as C } from "../catalogue.js";
import { evaluateGids } from "../gids.js";
import type { AnalyzerKind } from "../types.js";
import { lineShare, outcomeOf } from "./outcome.js";

const HEADER = /^\s*DEV\s+PORT\s+INDEX\s+GID\b/m;
const FOOTER = /^\s*n_gids_found=\d+\s*$/m;
const ROW = /^\s*[A-Za-z][\w.-]*\s+\d+\s+\d+\s+[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}(\s|$)/;

export const showGidsAnalyzer: AnalyzerKind = {
  kind: "show_gids",
  detect(head) {
    if (HEADER.test(head)) return 0.95;
    const rows = lineShare(head, ROW);
    if (FOOTER.test(head)) return Math.max(0.9, rows);
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
