/** Worker thread of analyzeNcclLogFile: scans one byte range of a log file and posts back its state. */
import { closeSync, openSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { type ByteRange, scanRange } from "./file.js";

parentPort?.once("message", (m: { path: string; range: ByteRange }) => {
  try {
    const fd = openSync(m.path, "r");
    try {
      parentPort?.postMessage({ state: scanRange(fd, m.range) });
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
