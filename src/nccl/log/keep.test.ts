import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { keep } from "./line.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("names kept from a log chunk do not keep the chunk alive", () => {
  test("twenty 4 MiB chunks, one host name kept from each: once the chunks go, their memory goes", () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    for (let i = 0; i < 20; i++) {
      const chunk = `${"gpu-node-0042.cluster.local:1234:5678 [0] NCCL INFO Channel 00/02\n".repeat(62_000)}${i}`;
      const host = chunk.slice(66 * 1000, 66 * 1000 + 27); // a V8 sliced string: it points into the chunk
      kept.push(keep(host));
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(kept[19]).toBe("gpu-node-0042.cluster.local");
    expect(grown).toBeLessThan(8 * 1024 * 1024); // pinned, the chunks would hold ~80 MB
  });
});
