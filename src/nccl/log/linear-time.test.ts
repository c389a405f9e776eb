/**
 * Reading a log costs time linear in its size whatever its lines hold. Every search the reader makes for a marker
 * either stays inside the line or is kept for the records after it, so no character is searched once per record:
 * - a line's colour reset (`ESC[0m`) is looked for in its own last characters: a search back from the line's end
 *   walked through every earlier line of the text each time a line ended in `m` without colour (`… custom platform`);
 * - a record's `host:` colon is found once for all the records a line holds: a long line of glued records with no
 *   colon (ranks writing into one line, or damage) searched to its end once per record.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const record = (i: number) => {
  const r = i % 64;
  return `gpu-node-${String(r >> 3).padStart(3, "0")}:${20000 + r}:${20100 + r} [${r & 7}] NCCL INFO Channel ${String(i % 32).padStart(2, "0")}/0 : ${r}[${r & 7}] -> ${(r + 1) % 64}[${(r + 1) & 7}] via P2P/IPC/read`;
};

function log(lines: number, line: (i: number) => string): string {
  let s = "";
  for (let i = 0; i < lines; i++) s += `${line(i)}\n`;
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

// CPU time, which a loaded machine inflates far less than wall time; each text is about 1 MB, read as one string.
describe("a log is read in time linear in its size", () => {
  test("lines that end in `m` without colour: about the time of the same lines ending otherwise, same facts", () => {
    const plain = log(8000, (i) => `${record(i)} a platform x`);
    const endsInM = log(8000, (i) => `${record(i)} a platform`);
    expect(analyzeNcclLog(endsInM).data.connections).toEqual(analyzeNcclLog(plain).data.connections);
    // A search back through the text took about 500 times longer here.
    expect(cpuMs(endsInM)).toBeLessThan(4 * cpuMs(plain) + 20);
  });

  test("glued records with no colon: one long line costs what the same records on short lines cost", () => {
    const glued = "] NCCL INFO x";
    const short = log(1200, (i) => `${record(i)} ${glued.repeat(200)}`);
    const long = log(4, (i) => `${record(i)} ${glued.repeat(60_000)}`);
    // Searching each record's colon to the line's end took about 20 times longer here.
    expect(cpuMs(long)).toBeLessThan(4 * cpuMs(short) + 20);
  });
});
