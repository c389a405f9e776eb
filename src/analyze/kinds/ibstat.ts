import { parseIbstat } from "../../parse/ibstat.js";
import { evaluatePorts } from "../ports.js";
import type { AnalyzerKind } from "../types.js";
import { outcomeOf } from "./outcome.js";

export const ibstatAnalyzer: AnalyzerKind = {
  kind: "ibstat",
  detect(head) {
    if (/^\s*CA\s+'[^']+'\s*$/m.test(head)) return /^\s*(CA type|Number of ports|Port \d+):/m.test(head) ? 0.95 : 0.7;
    return /^\s*Infiniband device\s+'[^']+'\s+port\s+\d+\s+status:/im.test(head) ? 0.9 : 0;
  },
  analyze(text, ctx) {
    return outcomeOf(parseIbstat(text), (value) => evaluatePorts(value.devices, ctx));
  },
};
