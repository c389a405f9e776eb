/**
 * The fleet verify HTML page at 1,000 and 10,000 nodes: how long writing it takes (the renderer, in Node), how big
 * it is, and how long headless Chromium takes from being handed the page to its first frame drawn (best of 5, after
 * one warm-up load). Target: a 1,000-node page drawn in under 1 s. Needs Debian's chromium (see .ci/run).
 */
import { cpus, loadavg } from "node:os";
import { renderHtml } from "../src/report/html/pages/fleet-verify.js";
import { launchBrowser, renderMs } from "../test/support/browser.js";
import { fleetResult } from "../test/support/fleet-report.js";

const TARGET_MS = 1000;

const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  for (const nodes of [1000, 10_000]) {
    const result = await fleetResult(nodes);
    renderHtml(result); // warm-up
    const t0 = performance.now();
    const html = renderHtml(result);
    const writeMs = performance.now() - t0;
    await renderMs(page, html, 1); // warm-up load
    const drawMs = await renderMs(page, html, 5);
    const verdict = nodes === 1000 ? `; target < ${TARGET_MS} ms: ${drawMs < TARGET_MS ? "PASS" : "MISS"}` : "";
    console.log(
      `fleet page, ${nodes} nodes: ${(html.length / 1024).toFixed(0)} KiB written in ${writeMs.toFixed(0)} ms; ` +
        `drawn by Chromium in ${drawMs.toFixed(0)} ms (best of 5)${verdict}`,
    );
  }
} finally {
  await browser.close();
}
