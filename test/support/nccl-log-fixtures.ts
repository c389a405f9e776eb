import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { analyzeNcclLog } from "../../src/nccl/log/analyzer.js";
import { fixtureText } from "./fixtures.js";

/** Every fixture NCCL log, one after another (mixed versions, WARNs, fallbacks, prefixes, UTF-8), and a cut last line. */
export function everyFixtureLog(): string {
  const dir = join(import.meta.dirname, "../../fixtures/nccl-logs");
  const logs = readdirSync(dir).sort();
  return `${logs.map((f) => fixtureText("nccl-logs", f)).join("\n")}gpu-b:77:77 [3] NCCL INFO Channel 0`;
}

/** What two reports of the same log must agree on. */
export const comparableReport = (r: ReturnType<typeof analyzeNcclLog>) => ({
  data: r.data,
  findings: r.findings,
  problems: r.problems,
});
