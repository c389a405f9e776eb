/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after another, and prints their reports, then
 * every target line again (PASS or MISS) as a summary. Each bench prints its measured figures and the target it must
 * reach; tests never assert on time. `npm run bench -- startup nccl-log` runs only the benches whose names hold a word.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

/** Runs one bench, its output shown as it comes; resolves to its exit status and its target lines. */
function runBench(file: string): Promise<{ status: number | null; targets: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, file)], {
      stdio: ["inherit", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      process.stdout.write(d);
      out += d.toString();
    });
    child.on("close", (status) =>
      resolve({ status, targets: out.split("\n").filter((l) => /\b(?:PASS|MISS)\b/.test(l)) }),
    );
  });
}

let failed = 0;
const summary: string[] = [];
for (const f of files) {
  process.stdout.write(`\n=== ${f} ===\n`);
  const r = await runBench(f);
  if (r.status !== 0) failed++;
  for (const t of r.targets) summary.push(`${f}: ${t.trim()}`);
}
process.stdout.write(`\n=== targets ===\n${summary.join("\n")}\n`);
process.stdout.write(`\n${files.length} benchmark files, ${failed} failed to run\n`);
process.exitCode = failed ? 1 : 0;
