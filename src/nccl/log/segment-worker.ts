/** Worker thread of SegmentWorkers: scans each NCCL log segment it is sent and posts back its state and buffer. */
import { parentPort } from "node:worker_threads";
import { scanSegment } from "./segment-scan.js";

type Job = { seq: number; buf: ArrayBuffer; offset: number; length: number };

parentPort?.on("message", (m: Job) => {
  try {
    const state = scanSegment(new Uint8Array(m.buf, m.offset, m.length));
    parentPort?.postMessage({ seq: m.seq, state, buf: m.buf }, [m.buf]);
  } catch (err) {
    parentPort?.postMessage({ seq: m.seq, error: err instanceof Error ? err.message : String(err) });
  }
});
