/** Worker thread of analyzeNcclLogFile: scans ranges of a log file from the shared queue and posts back their states. */
import { closeSync, openSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { type RangeQueue, scanQueued } from "./ranges.js";

parentPort?.once("message", (m: { path: string; queue: RangeQueue }) => {
  try {
    const fd = openSync(m.path, "r");
    try {
      parentPort?.postMessage({ states: scanQueued(fd, m.queue) });
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
