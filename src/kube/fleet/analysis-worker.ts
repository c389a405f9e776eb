/** Worker thread of the fleet analysis pool: collector log in, node analysis out. */
import { parentPort } from "node:worker_threads";
import { analyseLog } from "./node-analyser.js";

parentPort?.on("message", (msg: { id: number; log: string; node: string }) => {
  analyseLog(msg.log, msg.node).then(
    (r) => parentPort?.postMessage({ id: msg.id, result: r }),
    (err: unknown) =>
      parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
