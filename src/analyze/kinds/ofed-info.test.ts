import { describe, expect, it } from "vitest";
import { ofedInfoAnalyzer } from "./ofed-info.js";

// Shape seen at https://github.com/MrBr-github/lshca/issues/102: other tool output, then a prompt with
// `ofed_info -s`, then the DOCA-era five-part `OFED-internal-24.07-0.3.5.0.110:` line.
describe("ofed_info pasted after other lines", () => {
  it("is recognised when the DOCA-era five-part version follows an uname line and a prompt", () => {
    const paste = [
      "Linux gpu-node-07 5.15.0-105-generic #115-Ubuntu SMP x86_64 GNU/Linux",
      "Ubuntu 22.04.4 LTS",
      "root@gpu-node-07:~# ofed_info -s",
      "OFED-internal-24.07-0.3.5.0.110:",
    ].join("\n");
    expect(ofedInfoAnalyzer.detect(paste)).toBeGreaterThan(0.9);
    const out = ofedInfoAnalyzer.analyze(paste, {});
    expect(JSON.stringify(out)).toContain("DOCA-OFED 24.07-0.3.5.0.110");
  });
});

// The full version line quoted in prose with a Markdown block quote's `> ` (shape seen at
// https://github.com/cisco-system-traffic-generator/trex-core/pull/1046); our own version.
describe("ofed_info's version line quoted in prose", () => {
  it("is recognised behind `> ` among sentences, and read", () => {
    const paste = [
      "The check only takes one digit, so it misses",
      "",
      "> MLNX_OFED_LINUX-23.10-2.1.3.1 (OFED-23.10-2.1.3):",
      "",
      "and falls back to the defaults.",
    ].join("\n");
    expect(ofedInfoAnalyzer.detect(paste)).toBeGreaterThan(0.9);
    expect(JSON.stringify(ofedInfoAnalyzer.analyze(paste, {}).data)).toContain('"version":"23.10-2.1.3.1"');
  });

  it("a sentence that only names OFED is not the version line", () => {
    expect(ofedInfoAnalyzer.detect("> we run MLNX_OFED_LINUX 23.10 on all nodes\n")).toBe(0);
  });
});
