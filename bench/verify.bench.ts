/**
 * verify speed. Whole process: `node bin/kube-rdma.js verify --root <materialized A100 RoCE example tree>` (the built CLI, as a
 * user runs it), median of 20 runs; target < 150 ms. Baseline: a bare `node -e ""` start in the same script.
 * Also runChecks alone on the A100 RoCE example inventory, per call (fleet verify runs it once per node).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runChecks } from "../src/checks/index.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { openReader } from "../src/host/index.js";
import { readInventory } from "../src/inventory/index.js";

const TARGET_MS = 150;
const RUNS = 20;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function timeProcess(args: string[]): { ms: number[]; status: number | null; stderr: string } {
  const ms: number[] = [];
  let last: ReturnType<typeof spawnSync> | undefined;
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    last = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (i >= 2) ms.push(performance.now() - t0); // two warm-up runs fill the page cache
  }
  return { ms, status: last?.status ?? null, stderr: String(last?.stderr ?? "") };
}

/**
 * A script that times each phase of `verify --root DIR` from the modules (the sources through tsx: the built CLI is one
 * bundle; "import verify" includes tsx compiling them, the other phases are the same code).
 */
function phaseProbe(root: string): string {
  return `
const t = [performance.now()];
const { command } = await import("./src/cli/commands/verify.ts");
t.push(performance.now());
const { inventoryFromFlags } = await import("./src/cli/source.ts");
const inv = await inventoryFromFlags({ root: ${JSON.stringify(root)} });
t.push(performance.now());
const { runChecks, verifyReport } = await import("./src/checks/index.ts");
const findings = runChecks(inv, {});
t.push(performance.now());
const { renderVerifyText } = await import("./src/checks/render-text.ts");
renderVerifyText(verifyReport(inv, findings));
t.push(performance.now());
const names = ["import verify", "read + build inventory", "runChecks (first call)", "render text"];
console.log(names.map((n, i) => n + " " + (t[i + 1] - t[i]).toFixed(1) + " ms").join(", "), command.name ? "" : "");
`;
}

if (!existsSync("dist/main.js")) {
  console.log("dist/ is missing: run `npm run build` first (npm run bench does).");
  process.exit(1);
}
const a100 = findExample("a100-8x-roce");
if (!a100) throw new Error("the A100 RoCE example is not registered");
const dir = mkdtempSync(join(tmpdir(), "kube-rdma-verify-bench-"));
try {
  materializeSnapshot(a100.snapshot(), dir);
  const verify = timeProcess(["bin/kube-rdma.js", "verify", "--root", dir]);
  if (verify.status !== 0) {
    console.log(`verify --root exited ${verify.status}: ${verify.stderr.trim()}`);
    process.exit(1);
  }
  const bare = timeProcess(["-e", ""]);
  const v = median(verify.ms);
  const b = median(bare.ms);
  console.log(`verify --root <A100 RoCE example tree>, whole process: median ${v.toFixed(1)} ms over ${RUNS} runs`);
  console.log(`  baseline node -e "": median ${b.toFixed(1)} ms; verify = ${(v / b).toFixed(2)}× a bare node start`);
  console.log(`  target < ${TARGET_MS} ms: ${v < TARGET_MS ? "PASS" : "MISS"}`);

  // Where one cold run spends its time, in a fresh process like the CLI's (dist, no tsx).
  const probe = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", phaseProbe(dir)], {
    encoding: "utf8",
  });
  console.log(`  one cold run, by phase: ${probe.stdout.trim() || probe.stderr.trim()}`);

  const inv = await readInventory(await openReader({ root: dir }));
  const calls = 2000;
  for (let i = 0; i < 200; i++) runChecks(inv, { pod: true, expectGpus: 8 });
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) runChecks(inv, { pod: true, expectGpus: 8 });
  const perCall = ((performance.now() - t0) / calls) * 1000;
  console.log(`runChecks on the A100 RoCE example inventory: ${perCall.toFixed(1)} µs per call (${calls} calls)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
