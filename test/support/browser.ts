/**
 * Headless Chromium for the HTML report tests: Debian's `chromium` package driven by playwright-core (never a
 * downloaded browser). One browser per test file; each page records console errors, page errors and any request
 * it tries to make (a report page must make none).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.KUBE_RDMA_CHROMIUM ?? "/usr/bin/chromium";
/** Screenshots land here (git-ignored), for a person to look at after a run. */
export const ARTIFACTS = join(process.cwd(), "test-artifacts");

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium, as .ci/run does) ` +
        "or point KUBE_RDMA_CHROMIUM at a Chromium binary.",
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
}

export type OpenedPage = { page: Page; errors: string[]; requests: string[] };

/** Opens an HTML document at 1280×800 (colour scheme light unless asked) and records what went wrong. */
export async function openReport(
  browser: Browser,
  html: string,
  opts: { colorScheme?: "light" | "dark"; height?: number } = {},
): Promise<OpenedPage> {
  const page = await browser.newPage({
    viewport: { width: 1280, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? "light",
  });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => requests.push(r.url()));
  await page.setContent(html, { waitUntil: "load" });
  return { page, errors, requests };
}

/** A 1280×800 screenshot under test-artifacts/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** Milliseconds from handing a page its HTML to its first frame drawn: the best of `tries` (a shared CI box is noisy). */
export async function renderMs(page: Page, html: string, tries = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < tries; i++) {
    const start = performance.now();
    await page.setContent(html, { waitUntil: "load" });
    await page.evaluate("new Promise((done) => requestAnimationFrame(() => done(null)))");
    times.push(performance.now() - start);
  }
  return Math.min(...times);
}
