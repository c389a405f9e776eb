import { finding } from "../../checks/catalogue.js";
import { OFED_LABEL_SOURCE, OFED_VERSION_SOURCE, parseOfedInfo } from "../../parse/ofed-info.js";
import type { AnalyzerKind } from "../types.js";
import { headLines, outcomeOf, withEvidence } from "./outcome.js";

// Behind a prompt (`root@n1:~# `, a bare `$ `) or a Markdown block quote's `> ` (the line quoted in prose, seen at
// https://github.com/cisco-system-traffic-generator/trex-core/pull/1046), as the parser's prompt reader takes them off.
const OFED_LINE = new RegExp(`^[ \\t]*(?:\\S*[$#>][ \\t]+)?${OFED_LABEL_SOURCE}${OFED_VERSION_SOURCE}`);

export const ofedInfoAnalyzer: AnalyzerKind = {
  kind: "ofed_info",
  detect(head) {
    const lines = headLines(head, 50);
    // `ofed_info -s` is one line; the full `ofed_info` starts with it and lists packages below. A paste may carry other
    // lines first (a banner, an `uname -a`), so the version line is looked for anywhere in the head; the DOCA-era
    // form has five parts (`OFED-internal-24.07-0.3.5.0.110:`), seen at https://github.com/MrBr-github/lshca/issues/102.
    if (lines.some((l) => OFED_LINE.test(l))) return 0.95;
    // The output is the error itself: a shell's "command not found", a wrapper's "No such file or directory".
    const missing = /ofed_info'?:? (?:command )?not found|ofed_info'?: No such file or directory/.test(head);
    return missing && lines.length <= 6 ? 0.8 : 0;
  },
  analyze(text) {
    // The version line decides flavour and version; a "not found" line (or nothing) says there is none.
    const parsed = withEvidence(parseOfedInfo(text), (v) => {
      const by = v.status === "present" ? "version_line" : v.raw !== null ? "absence_line" : null;
      return { flavor: v.status === "present" && v.flavor === null ? null : by, version: by };
    });
    return outcomeOf(parsed, (value) => {
      if (value.status === "absent") {
        return { findings: [finding("OFED_ABSENT", "node", { detail: null })], summary: "no OFED (inbox rdma-core)" };
      }
      // `ofed_info -n` names no distribution: the number alone.
      return { findings: [], summary: value.flavor ? `${value.flavor} ${value.version}` : `OFED ${value.version}` };
    });
  },
};
