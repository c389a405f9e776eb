/**
 * Headless Chromium for the HTML report tests, driven by playwright-core (which never downloads a browser). The
 * browser is the one inside the @sparticuz/chromium npm package, so `npm ci` is all a machine needs (no system
 * package, no root); KUBE_RDMA_CHROMIUM points at another binary instead. One browser per test file; each page
 * records console errors, page errors and any request it tries to make (a report page must make none).
 */
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Screenshots land here (git-ignored), for a person to look at after a run. */
export const ARTIFACTS = join(process.cwd(), "test-artifacts");

export type ChromiumInstall = { executable: string; libs: string | null; fonts: string | null };

/**
 * Where the browser is: KUBE_RDMA_CHROMIUM, or the packaged one unpacked to the temp directory (once; the test run's
 * global setup does it before the workers start, so they never unpack it side by side).
 */
export async function prepareChromium(): Promise<ChromiumInstall> {
  const given = process.env.KUBE_RDMA_CHROMIUM;
  if (given) {
    return {
      executable: given,
      libs: process.env.KUBE_RDMA_CHROMIUM_LIBS ?? null,
      fonts: process.env.KUBE_RDMA_CHROMIUM_FONTS ?? null,
    };
  }
  const { default: packaged } = await import("@sparticuz/chromium");
  const executable = await packaged.executablePath();
  // The package unpacks its own NSS/NSPR libraries only on Amazon Linux; a bare Debian or Ubuntu without a browser
  // installed lacks them too, so they are always unpacked and put first on the browser's library path. The version
  // pinned (the last whose engines accept Node 20) keeps its unpacker in lambdafs, beside its entry module.
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  const { inflate } = createRequire(import.meta.url)(join(dirname(entry), "lambdafs.cjs")) as {
    inflate: (file: string) => Promise<string>;
  };
  const bin = join(dirname(entry), "..", "..", "bin");
  const libs = join(await inflate(join(bin, "al2023.tar.br")), "lib");
  return { executable, libs, fonts: join(dirname(executable), "fonts") };
}

export async function launchBrowser(): Promise<Browser> {
  const c = await prepareChromium();
  if (!existsSync(c.executable)) {
    throw new Error(
      `no Chromium at ${c.executable}: run \`npm ci\` (it installs the packaged browser, @sparticuz/chromium) ` +
        "or point KUBE_RDMA_CHROMIUM at a Chromium binary.",
    );
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  if (c.libs) env.LD_LIBRARY_PATH = [c.libs, env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  if (c.fonts && existsSync(c.fonts)) env.FONTCONFIG_PATH ??= c.fonts;
  return chromium.launch({ executablePath: c.executable, args: ["--no-sandbox", "--disable-gpu"], env });
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
