/**
 * The HTML reports opened in headless Chromium (Debian's chromium, driven by playwright-core): each page loads with
 * no console error and no request, draws the right number of series, points and cells, filters by severity, prints
 * without its controls, and has a dark scheme. Screenshots at 1280×800 go to test-artifacts/.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { main } from "../src/cli/main.js";
import { pairRounds } from "../src/nccl/pairs/index.js";
import { FLEET_BENCH_REPORT } from "../src/report/kinds/fleet-bench.js";
import { renderReport } from "../src/report/registry.js";
import { launchBrowser, openReport, renderMs, screenshot } from "./support/browser.js";
import { simulatedBenchResult, TWENTY_FOUR_NODES_ONE_BAD } from "./support/fleet-bench-result.js";
import {
  analyzeEntries,
  analyzePage,
  exampleInventory,
  fleetPage,
  HOSTILE,
  HOSTILE_ATTR,
  HOSTILE_TAG,
  judgePage,
  pairMeasurements,
  verifyPage,
} from "./support/html-pages.js";
import { captureIo } from "./support/io.js";
import { allReduceOutput } from "./support/nccl-tests-output.js";

// A browser page under a loaded CI box can take seconds; each test gets a minute.
vi.setConfig({ testTimeout: 60_000 });

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out };
}

/** What a page must never do: run script, open a dialog, hold an event attribute. */
async function expectInert(page: import("playwright-core").Page): Promise<void> {
  // Evaluated in the page (a string: this project's TypeScript has no DOM types).
  const active = await page.evaluate(`({
    loaders: document.querySelectorAll("script, img, iframe, object, embed, link").length,
    handlers: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
  })`);
  expect(active).toEqual({ loaders: 0, handlers: 0 });
}

describe("verify --example gid-index-5 -o html", () => {
  test("the odd GID index: its finding, the GID tables with the index NCCL uses, the GPU↔NIC grid", async () => {
    const { code, out } = await cli(["verify", "--example", "gid-index-5", "-o", "html"]);
    expect(code).toBe(0);
    const { page, errors, requests } = await openReport(browser, out);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await expectInert(page);

    expect(await page.locator("li.finding").count()).toBe(1);
    expect(await page.locator("li.finding").getAttribute("data-code")).toBe("GID_INDEX_DIFFERS");
    // 8 RoCE data ports, one chosen row each; mlx5_5's is index 5 and its other rows are tinted as the odd port.
    expect(await page.locator("table.gids tr.chosen").count()).toBe(8);
    const mlx55 = page.locator("table.gids tr.chosen", { hasText: "mlx5_5" });
    expect(await mlx55.locator("td").nth(2).textContent()).toBe("5");
    expect(await page.locator("table.gids tr.odd").count()).toBe(5);
    // 8 GPUs × 9 HCAs; each GPU has its two PIX NICs outlined.
    expect(await page.locator("svg.topology rect.cell").count()).toBe(72);
    expect(await page.locator("svg.topology rect.cell.dist-PIX").count()).toBe(16);
    expect(await page.locator("svg.topology rect.mark").count()).toBe(16);
    await screenshot(page, "verify-gid-index-5");

    // The severity filter hides the warning and shows it again; no script needed.
    await page.click("label[for=show-warning]");
    expect(await page.isChecked("#show-warning")).toBe(false);
    expect(await page.locator("li.finding").isVisible()).toBe(false);
    await page.click("label[for=show-warning]");
    expect(await page.locator("li.finding").isVisible()).toBe(true);

    // Printed (even from a reader in the dark scheme): no filter controls, the light palette; on screen in the dark
    // scheme: a dark background.
    await page.emulateMedia({ media: "print", colorScheme: "dark" });
    expect(await page.locator("fieldset.filter").isVisible()).toBe(false);
    expect(await page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(255, 255, 255)");
    await page.emulateMedia({ media: "screen", colorScheme: "dark" });
    expect(await page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(13, 17, 23)");
    await screenshot(page, "verify-gid-index-5-dark");
    await page.close();
  });
});

describe("analyze -o html", () => {
  test("two nccl-tests runs: one series each, one point per size, the expected band and the runs' median", async () => {
    const files = [
      "fixtures/nccl-tests/allreduce-2node-a100-hdr-185.txt",
      "fixtures/nccl-tests/allreduce-2node-socket-9.txt",
    ];
    const json = JSON.parse((await cli(["analyze", ...files, "--expect", "180", "-o", "json"])).out) as {
      data: { runs: { rows: unknown[] }[] };
    }[];
    const sizes = json.map((e) => e.data.runs[0]!.rows.length);
    const { out } = await cli(["analyze", ...files, "--expect", "180", "-o", "html"]);
    const { page, errors, requests } = await openReport(browser, out);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.locator("svg.busbw").getAttribute("data-series")).toBe("2");
    const series = page.locator("svg.busbw g.series");
    expect(await series.count()).toBe(2);
    for (const [i, n] of sizes.entries()) expect(await series.nth(i).locator("circle.point").count()).toBe(n);
    expect(await page.locator("svg.busbw rect.band").count()).toBe(1);
    expect(await page.locator("svg.busbw line.median").count()).toBe(1);
    expect(await page.locator("svg.busbw").textContent()).toContain("expected 180.0 GB/s");
    await screenshot(page, "analyze-nccl-tests");
    await page.close();
  });
});

describe("bench judge -o html", () => {
  test("6 nodes, gpu-4 slow with everyone and a slow gpu-2↔gpu-5 link: the heat map marks both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-html-pairs-"));
    try {
      const nodes = ["gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6"];
      const files = pairRounds(nodes).flatMap((r) =>
        r.pairs.map(([a, b]) => {
          const slow = a === "gpu-4" || b === "gpu-4" ? 120 : [a, b].sort().join() === "gpu-2,gpu-5" ? 140 : 185;
          const file = join(dir, `${a}+${b}.txt`);
          writeFileSync(file, allReduceOutput({ hosts: [a, b], peakBusBw: slow }));
          return file;
        }),
      );
      const { code, out } = await cli(["bench", "judge", ...files, "-o", "html"]);
      expect(code).toBe(1);
      const { page, errors, requests } = await openReport(browser, out);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      const map = page.locator("svg.pairs");
      expect(await map.locator("rect.cell").count()).toBe(36);
      expect(await map.locator("rect.cell.pair").count()).toBe(30);
      expect(await map.locator("rect.cell.slow").count()).toBe(12); // gpu-4's 5 pairs and the link, both halves
      expect(await map.locator("rect.mark").count()).toBe(2);
      const bad = await map.locator("text.bad-label").allTextContents(); // the row's and the column's label
      expect(bad).toHaveLength(2);
      for (const label of bad) expect(label).toMatch(/^gpu-4 \(bad node\)✖ gpu-4$/); // the tooltip, then the text
      await screenshot(page, "bench-judge");
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("fleet verify -o html", () => {
  test("a 1,000-node fleet: one row per node, every check a column, drawn in under 1 s", async () => {
    const html = await fleetPage(1000);
    const { page, errors, requests } = await openReport(browser, html);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await renderMs(page, html)).toBeLessThan(1000); // bench/html-report.bench.ts prints the figures
    const matrix = page.locator("svg.fleet");
    expect(await matrix.getAttribute("data-rows")).toBe("1000");
    const cols = Number(await matrix.getAttribute("data-cols"));
    expect(await matrix.getAttribute("data-cells")).toBe(String(1000 * cols));
    // Cells with something to say are rects with a tooltip; the ok ones are drawn together as one path.
    const okCells = Number(await matrix.locator("path.cells.sev-ok").getAttribute("data-cells"));
    expect(okCells + (await matrix.locator("rect.cell").count())).toBe(1000 * cols);
    // 1 node in 200 not verified; the 4 nodes with older firmware on mlx5_8 differ from the fleet's majority.
    expect(await matrix.locator("rect.cell.not-verified").count()).toBe(5 * cols);
    const firmware = await matrix.locator("rect.cell.sev-warning title").allTextContents();
    expect(firmware.filter((t) => t.includes(", HCA firmware: ")).map((t) => t.split(",")[0])).toEqual([
      "gpu-0008",
      "gpu-0258",
      "gpu-0508",
      "gpu-0758",
    ]);
    await screenshot(page, "fleet-verify-1000");
    await page.close();
  });
});

describe("fleet bench -o html", () => {
  test("24 simulated nodes, gpu-23 bad, mlx5_4 of gpu-21 bad, job r1-3 never scheduled: found, marked, listed", async () => {
    const result = await simulatedBenchResult(TWENTY_FOUR_NODES_ONE_BAD);
    const html = await renderReport(FLEET_BENCH_REPORT, result, "html");
    const { page, errors, requests } = await openReport(browser, html);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await expectInert(page);
    // The verdicts with how sure and the confirming re-test; each finding with its fix.
    const verdicts = page.locator("table.verdicts tbody tr");
    expect(await verdicts.count()).toBe(2);
    expect(await verdicts.nth(0).locator("td").allTextContents()).toEqual([
      "FLEET_BAD_NODE",
      "gpu-23",
      "high",
      expect.stringContaining("run gpu-23 rail by rail"),
    ]);
    expect(await verdicts.nth(1).locator("td").nth(1).textContent()).toBe("gpu-21/mlx5_4");
    expect(await page.locator("li.finding").count()).toBe(3);
    expect(await page.locator("li.finding p.fix").count()).toBe(3);
    // Round 1: 12 pair jobs over 24 nodes, 11 with a result (both halves drawn), 1 failed; the two slow pairs hold
    // the bad node and the bad rail's node, both outlined, and those two nodes are crossed on both axes.
    const map = page.locator("svg.fleet-bench");
    expect(await map.getAttribute("data-cells")).toBe(String(24 * 24));
    expect(await map.locator("rect.cell.pair").count()).toBe(22);
    expect(await map.locator("rect.cell.slow").count()).toBe(4);
    expect(await map.locator("rect.cell.failed").count()).toBe(2);
    expect(await map.locator("rect.mark").count()).toBe(4);
    expect(await map.locator("text.bad-label").count()).toBe(4);
    // Rounds, jobs and budget; the failed job listed with its nodes and reason.
    expect(await page.locator("table.rounds tbody tr").count()).toBe(result.report.rounds.length);
    expect(await page.locator("dl.facts").textContent()).toContain("budget");
    const failed = page.locator("table.failed-jobs tbody tr");
    expect(await failed.count()).toBe(1);
    expect(await failed.locator("td").allTextContents()).toEqual([
      "r1-3",
      "1",
      "gpu-12 ↔ gpu-13",
      "never scheduled within 900 s",
    ]);
    await screenshot(page, "fleet-bench");
    await page.close();
  });
});

describe("hostile names in a real browser", () => {
  test("a host called <script>, names that break attributes: shown as text on every page, nothing runs", async () => {
    const dialogs: string[] = [];
    const inv = await exampleInventory("gid-index-5", { mlx5_5: HOSTILE_ATTR, "cce-a100-roce-01": HOSTILE });
    const nodes = [HOSTILE, `x"onmouseover="alert(1)`, `a'><svg/onload=alert(2)>`, "gpu-4"];
    const pages = [
      await verifyPage(inv),
      await analyzePage(
        analyzeEntries([
          { file: HOSTILE_TAG, text: allReduceOutput({ hosts: [HOSTILE, "gpu-2"], peakBusBw: 150 }) },
          { file: HOSTILE_ATTR, text: allReduceOutput({ hosts: ["gpu-3", "gpu-4"], peakBusBw: 180 }) },
        ]),
      ),
      await judgePage(pairMeasurements(nodes, (a, b) => (a === HOSTILE || b === HOSTILE ? 100 : 185))),
      await fleetPage([HOSTILE, HOSTILE_ATTR, HOSTILE_TAG, "gpu-4"]),
      await renderReport(
        FLEET_BENCH_REPORT,
        await simulatedBenchResult({
          ...TWENTY_FOUR_NODES_ONE_BAD,
          rename: { "gpu-23": HOSTILE, "gpu-21": HOSTILE_TAG, "gpu-12": HOSTILE_ATTR },
        }),
        "html",
      ),
    ];
    for (const html of pages) {
      const { page, errors, requests } = await openReport(browser, html);
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.hover("svg");
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await expectInert(page);
      expect(await page.evaluate("document.body.textContent")).toContain(HOSTILE);
      await page.close();
    }
    expect(dialogs).toEqual([]);
  });
});
