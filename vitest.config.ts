import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Property tests draw from one seed per commit (the first 32 bits of HEAD): what CI sees on a commit, `npm test` on
 * that commit sees too, and each new commit explores new cases. FC_SEED=N replays a reported seed.
 */
function propertySeed(): number {
  if (process.env.FC_SEED) return Number(process.env.FC_SEED);
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return Number.parseInt(head.trim().slice(0, 8), 16) | 0;
  } catch {
    return 20261203; // not a git checkout
  }
}
process.env.FC_SEED = String(propertySeed());

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["test/support/property-seed.ts"],
    // The HTML tests' browser comes from npm (@sparticuz/chromium): unpacked once, before the workers start.
    globalSetup: ["test/support/browser-setup.ts"],
    testTimeout: 20_000,
    pool: "forks",
    // Two files at a time even on two cores (vitest's default there is one): many tests wait on child processes and
    // sockets, and the whole run takes about three quarters of the time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
