/**
 * Reading a log costs time linear in its size whatever its lines end with. A line's colour reset (`ESC[0m`) is looked
 * for in its own last characters only: a search back from the line's end would walk through every earlier line of
 * the text each time a line ends in `m` without colour (`… custom platform`, a training line's `… 35 ms` glued as
 * `35ms`), quadratic in the text.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const LINES = 8000;

function log(ending: string): string {
  let s = "";
  for (let i = 0; i < LINES; i++) {
    const r = i % 64;
    s += `gpu-node-${String(r >> 3).padStart(3, "0")}:${20000 + r}:${20100 + r} [${r & 7}] NCCL INFO Channel ${String(i % 32).padStart(2, "0")}/0 : ${r}[${r & 7}] -> ${(r + 1) % 64}[${(r + 1) & 7}] via P2P/IPC/read${ending}\n`;
  }
  return s;
}

/** CPU milliseconds (user + system) to analyse `text`, the least of three runs. */
function cpuMs(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const before = process.cpuUsage();
    analyzeNcclLog(text);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

describe("a log whose lines end in `m`", () => {
  test("reads in about the time the same log with other line ends takes, with the same facts", () => {
    const plain = log(" a platform x");
    const endsInM = log(" a platform");
    expect(analyzeNcclLog(endsInM).data.connections).toEqual(analyzeNcclLog(plain).data.connections);
    // CPU time, which a loaded machine inflates far less than wall time. Searching back through the text took
    // about 500 times longer here (one ~1 MB string, 8,000 lines); a bounded look takes about the same time.
    expect(cpuMs(endsInM)).toBeLessThan(4 * cpuMs(plain) + 20);
  });
});
