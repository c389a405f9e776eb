import { parseIbstat } from "../../parse/ibstat.js";
import { decidePorts } from "../host-evidence.js";
import { evaluatePorts } from "../ports.js";
import type { AnalyzerKind } from "../types.js";
import { anyLine, outcomeOf, portsUnread } from "./outcome.js";

export const ibstatAnalyzer: AnalyzerKind = {
  kind: "ibstat",
  detect(head) {
    // `CA 'mlx5_0'`, or `CA: 'mlx4_1'` before the one port `ibstat CA PORT` shows.
    if (anyLine(head, /^[ \t]*CA:?[ \t]+'[^']+'[ \t]*$/)) {
      return anyLine(head, /^[ \t]*(CA type|Number of ports|Port \d+):/) ? 0.95 : 0.7;
    }
    return anyLine(head, /^[ \t]*Infiniband device[ \t]+'[^']+'[ \t]+port[ \t]+\d+[ \t]+status:/i) ? 0.9 : 0;
  },
  analyze(text, ctx) {
    const parsed = parseIbstat(text);
    const decided = parsed.ok
      ? {
          ...parsed,
          value: decidePorts(parsed.value, parsed.value.format === "ibstat" ? "ca_lines" : "ibstatus_blocks"),
        }
      : parsed;
    const out = outcomeOf(decided, (value) => evaluatePorts(value.devices, ctx));
    // Device names and no port (a grep of the `CA '…'` lines, a paste cut before its ports): read in part, never a PASS.
    return portsUnread(parsed) ? { ...out, unread: ["ports"] } : out;
  },
};
