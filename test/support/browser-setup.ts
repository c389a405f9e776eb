/**
 * Vitest global setup: unpacks the packaged Chromium once, before any test file starts, and hands its paths to the
 * workers (see prepareChromium in browser.ts). KUBE_RDMA_CHROMIUM set to another Chromium binary skips it.
 */
import { prepareChromium } from "./browser.js";

export default async function setup(): Promise<void> {
  const c = await prepareChromium();
  process.env.KUBE_RDMA_CHROMIUM = c.executable;
  if (c.libs) process.env.KUBE_RDMA_CHROMIUM_LIBS = c.libs;
  if (c.fonts) process.env.KUBE_RDMA_CHROMIUM_FONTS = c.fonts;
}
