/** Worker thread of the fleet analysis pool: collector log in, node analysis out. */
import { parentPort } from "node:worker_threads";
import { analyseLog, type FleetCheckOptions } from "./node-analyser.js";

parentPort?.on("message", (msg: { id: number; log: string; node: string; opts?: FleetCheckOptions }) => {
  // The callbacks keep only the id: the log is garbage once parsed, not kept until the analysis ends.
  const id = msg.id;
  analyseLog(msg.log, msg.node, msg.opts).then(
    (r) => parentPort?.postMessage({ id, result: r }),
    (err: unknown) =>
      parentPort?.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});

// Loaded: from now on a job's time is its analysis alone (a worker's start is not charged to the first snapshot).
parentPort?.postMessage({ ready: true });
