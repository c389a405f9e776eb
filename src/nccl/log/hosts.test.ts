import { describe, expect, it } from "vitest";
import { ChunkFeeder } from "./feeder.js";
import { LogState } from "./state.js";

// Record shape `%s:%d:%d [%d] NCCL INFO …` (hostname, pid, tid, cudaDev) as NCCL's src/debug.cc prints it
// (https://github.com/NVIDIA/nccl/blob/master/src/debug.cc); hosts and numbers here are made up.
const rec = (host: string, pid: number, dev: number) =>
  `${host}:${pid}:${pid + 7} [${dev}] NCCL INFO Channel 00/0 : ${dev}[${dev}] -> ${dev + 1}[${dev + 1}] via P2P/IPC\n`;

function hostsOf(text: string): Set<string> {
  const f = new ChunkFeeder(new LogState());
  f.write(text);
  return f.finish().hosts;
}

describe("the host table", () => {
  it("keeps apart hosts that differ in one digit anywhere, interleaved line by line", () => {
    const names = Array.from({ length: 1500 }, (_, i) => `rack${i % 3}-gpu${String(i).padStart(4, "0")}`);
    let text = "";
    for (let round = 0; round < 3; round++) {
      for (const [i, h] of names.entries()) text += rec(h, 3100 + i, i % 8);
    }
    const hosts = hostsOf(text);
    expect(hosts.size).toBe(1500);
    for (const h of names) expect(hosts.has(h)).toBe(true);
  });

  it("names no host for a record without the full host:pid:tid", () => {
    const hosts = hostsOf(
      "trainer0722410:22467 [6] NCCL INFO Channel 00/0 : 6[6] -> 7[7] via P2P/IPC\n" +
        "trainer-3:XXXXXX:40112 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/IPC\n",
    );
    expect([...hosts]).toEqual(["trainer-3"]);
  });
});
