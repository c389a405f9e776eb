/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after another, and prints their reports.
 * Each bench prints its measured figures and the target it must reach; tests never assert on time.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n=== ${f} ===\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(here, f)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.stdout.write(`\n${files.length} benchmark files, ${failed} failed to run\n`);
process.exitCode = failed ? 1 : 0;
