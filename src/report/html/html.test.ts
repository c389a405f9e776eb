import { describe, expect, test } from "vitest";
import { simulatedBenchResult, TWENTY_FOUR_NODES_ONE_BAD } from "../../../test/support/fleet-bench-result.js";
import {
  analyzeEntries,
  analyzePage,
  exampleInventory,
  fixture,
  fleetPage,
  HOSTILE,
  HOSTILE_ATTR,
  HOSTILE_TAG,
  judgePage,
  pairMeasurements,
  verifyPage,
} from "../../../test/support/html-pages.js";
import { judgePairs } from "../../nccl/pairs/index.js";
import { BENCH_JOB_REPORT } from "../kinds/bench.js";
import { FLEET_BENCH_REPORT } from "../kinds/fleet-bench.js";
import { VERIFY_REPORT } from "../kinds/verify.js";
import { formatsOf, renderReport } from "../registry.js";
import { esc, h, richText } from "./html.js";

/**
 * Anything that would make a page reach the network or run code: a URL, a stylesheet import, an element that loads
 * or runs something, an attribute that does. Escaped text can hold `src=x` but never a raw quote or `<`.
 */
const OUTSIDE =
  /https?:|\/\/[a-z0-9]|url\(|@import|\s(?:src|href|on[a-z]+)\s*=\s*["']|<(?:script|img|iframe|link|object|embed)\b/i;

describe("HTML building escapes every value", () => {
  test("a value in text or in an attribute comes out as text, never as markup", () => {
    const html = h`<td title="${HOSTILE_ATTR}">${HOSTILE}</td>`.value;
    expect(html).toBe('<td title="x&quot; onmouseover=&quot;alert(1)">&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(esc(HOSTILE_TAG)).toBe("a&#39;&gt;&lt;img src=x onerror=alert(2)&gt;");
  });

  test("catalogue text shows `commands` as code, and what is inside the backticks is escaped too", () => {
    expect(richText("run `kubectl cordon <node>` & wait").value).toBe(
      "run <code>kubectl cordon &lt;node&gt;</code> &amp; wait",
    );
  });
});

describe("one registry renders every report kind", () => {
  test("a kind without a page refuses -o html with the formats it has (a usage error, exit 2)", async () => {
    expect(formatsOf(BENCH_JOB_REPORT)).toEqual(["text", "json", "yaml"]);
    expect(formatsOf(VERIFY_REPORT)).toEqual(["text", "json", "yaml", "html"]);
    const cmd = { argv: ["all_reduce_perf"], np: 16, env: {}, notes: [] };
    await expect(renderReport(BENCH_JOB_REPORT, cmd, "html")).rejects.toThrow(
      /the bench job report has no html format/,
    );
  });
});

describe("the pages are self-contained and escape hostile names everywhere", () => {
  test("verify: a host called <script> and an HCA whose name breaks attributes", async () => {
    const inv = await exampleInventory("gid-index-5", { mlx5_5: HOSTILE_ATTR, "cce-a100-roce-01": HOSTILE });
    const html = await verifyPage(inv);
    expect(html).not.toMatch(OUTSIDE);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    // The renamed HCA is the one with the odd GID index: its name is in the finding, the GID table and the grid.
    expect(html.split("x&quot; onmouseover=&quot;alert(1)").length).toBeGreaterThan(5);
  });

  test("analyze: a file and an nccl-tests host with hostile names", async () => {
    const { allReduceOutput } = await import("../../../test/support/nccl-tests-output.js");
    const entries = analyzeEntries([
      { file: HOSTILE_TAG, text: allReduceOutput({ hosts: [HOSTILE, "gpu-2"], peakBusBw: 150 }) },
      { file: HOSTILE, text: fixture("captures/show_gids/a100-roce-gid-index-5.txt") },
    ]);
    const html = await analyzePage(entries);
    expect(html).not.toMatch(OUTSIDE);
    expect(html).toContain("a&#39;&gt;&lt;img src=x onerror=alert(2)&gt;");
  });

  test("bench judge and fleet verify: hostile node names", async () => {
    // Host names in rank lines have no spaces: these break out of text and attributes without one.
    const nodes = [HOSTILE, `x"onmouseover="alert(1)`, `a'><svg/onload=alert(2)>`, "gpu-4"];
    const measured = pairMeasurements(nodes, (a, b) => (a === HOSTILE || b === HOSTILE ? 100 : 185));
    expect(judgePairs(measured).pairs).toHaveLength(6);
    const judged = await judgePage(measured);
    expect(judged).not.toMatch(OUTSIDE);
    expect(judged).toContain("x&quot;onmouseover=&quot;alert(1)");
    expect(judged).toContain("a&#39;&gt;&lt;svg/onload=alert(2)&gt;");
    const fleet = await fleetPage([...nodes, ...Array.from({ length: 6 }, (_, i) => `gpu-${i + 10}`)]);
    expect(fleet).not.toMatch(OUTSIDE);
    expect(fleet).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  test("fleet bench: a bad node called <script>, a bad rail and a failed job on nodes whose names break attributes", async () => {
    const result = await simulatedBenchResult({
      ...TWENTY_FOUR_NODES_ONE_BAD,
      rename: { "gpu-23": HOSTILE, "gpu-21": HOSTILE_TAG, "gpu-12": HOSTILE_ATTR },
    });
    expect(result.report.found.nodes).toEqual([HOSTILE]);
    expect(result.report.failedJobs[0]?.nodes).toContain(HOSTILE_ATTR);
    const html = await renderReport(FLEET_BENCH_REPORT, result, "html");
    expect(html).not.toMatch(OUTSIDE);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("x&quot; onmouseover=&quot;alert(1)");
    expect(html).toContain("a&#39;&gt;&lt;img src=x onerror=alert(2)&gt;");
  });
});
