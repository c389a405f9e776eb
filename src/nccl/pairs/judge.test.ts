import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { judgePairs, type PairMeasurement, pairFromFileName } from "./judge.js";
import { pairRounds } from "./schedule.js";

/** A full round of 2-node runs over `nodes`; `speed(a, b)` gives each pair's bus bandwidth. */
function fullRound(nodes: string[], speed: (a: string, b: string) => number): PairMeasurement[] {
  return pairRounds(nodes).flatMap((r) =>
    r.pairs.map(([a, b]) => ({ source: `round${r.round}-${a}-${b}.txt`, hosts: [a, b], busbw: speed(a, b) })),
  );
}

const NODES = ["gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6"];
const codes = (r: ReturnType<typeof judgePairs>) => r.findings.map((f) => `${f.code} ${f.subject}`);

describe("bench judge: which node or link a round of 2-node tests points at", () => {
  test("six healthy nodes at 186–192 GB/s → no finding, every node ok", () => {
    const r = judgePairs(fullRound(NODES, (a, b) => 186 + ((a.length + b.charCodeAt(4)) % 7)));
    expect(r.findings).toEqual([]);
    expect(r.pairs).toHaveLength(15);
    expect(r.nodes.every((n) => n.verdict === "ok")).toBe(true);
    expect(r.referenceGBps).toBeGreaterThanOrEqual(186);
  });

  // The reference is the median pair (robust statistics: median and MAD, as fleet bench judges), not the best: a
  // single fast outlier — two nodes under one switch, a lucky run — must not make every other pair look slow.
  test("one fast outlier pair (250 GB/s among pairs at 186–192) → no finding; the reference is the median, not the outlier", () => {
    const r = judgePairs(
      fullRound(NODES, (a, b) => (a === "gpu-1" && b === "gpu-2" ? 250 : 186 + ((a.length + b.charCodeAt(4)) % 7))),
    );
    expect(r.findings).toEqual([]);
    expect(r.referenceFrom).toBe("the median of 15 pairs");
    expect(r.referenceGBps).toBeLessThan(193);
  });

  test("gpu-4 slow with all five partners → error PAIR_BAD_NODE on gpu-4, the others cleared", () => {
    const r = judgePairs(fullRound(NODES, (a, b) => (a === "gpu-4" || b === "gpu-4" ? 96 : 190)));
    expect(codes(r)).toEqual(["PAIR_BAD_NODE gpu-4"]);
    const f = r.findings[0]!;
    expect(f.severity).toBe("error");
    expect(f.message).toContain("slow with every partner");
    expect(f.message).toContain("with gpu-1 96 GB/s");
    expect(f.message).toContain("gpu-1, gpu-2, gpu-3, gpu-5, gpu-6 reach full speed with other partners");
    expect(f.fix).toContain("kubectl cordon gpu-4");
    expect(r.nodes.find((n) => n.node === "gpu-4")).toEqual({
      node: "gpu-4",
      pairs: 5,
      slowPairs: 5,
      verdict: "bad_node",
    });
    expect(r.nodes.filter((n) => n.verdict !== "ok").map((n) => n.node)).toEqual(["gpu-4"]);
  });

  test("gpu-2↔gpu-5 slow only together, once → warning PAIR_BAD_LINK (re-run it), both nodes ok", () => {
    const slowPair = (a: string, b: string) => [a, b].sort().join() === "gpu-2,gpu-5";
    const r = judgePairs(fullRound(NODES, (a, b) => (slowPair(a, b) ? 120 : 191)));
    expect(codes(r)).toEqual(["PAIR_BAD_LINK gpu-2↔gpu-5"]);
    expect(r.findings[0]!.severity).toBe("warning");
    expect(r.findings[0]!.message).toContain("the path between them is the likely fault");
    expect(r.findings[0]!.fix).toMatch(/^Re-run this pair/);
    expect(r.nodes.every((n) => n.verdict === "ok")).toBe(true);
  });

  test("gpu-2↔gpu-5 still slow when run again → error PAIR_BAD_LINK, best of 2 runs", () => {
    const slowPair = (a: string, b: string) => [a, b].sort().join() === "gpu-2,gpu-5";
    const round = fullRound(NODES, (a, b) => (slowPair(a, b) ? 120 : 191));
    const r = judgePairs([...round, { source: "again.txt", hosts: ["gpu-5", "gpu-2"], busbw: 118 }]);
    expect(r.findings.map((f) => `${f.severity} ${f.code}`)).toEqual(["error PAIR_BAD_LINK"]);
    expect(r.findings[0]!.message).toContain("120 GB/s together (best of 2 runs)");
    expect(r.findings[0]!.message).toContain("the path between them is at fault");
  });

  test("first round only, gpu-3↔gpu-4 slow → both suspects, each re-tested with a different known-good node", () => {
    const first = fullRound(NODES, (a, b) => ([a, b].includes("gpu-3") ? 90 : 190)).filter((m) =>
      m.source.startsWith("round1-"),
    );
    const slow = first.find((m) => m.busbw === 90)!;
    const r = judgePairs(first);
    const suspects = [...slow.hosts].sort();
    expect(codes(r)).toEqual(suspects.map((n) => `PAIR_SUSPECT ${n}`));
    const partners = r.retest.map((t) => t.with);
    expect(partners.every((p) => p !== null && !suspects.includes(p))).toBe(true);
    expect(new Set(partners).size).toBe(partners.length);
    expect(r.findings[0]!.fix).toMatch(/^Test gpu-\d with gpu-\d, which reached full speed/);
  });

  test("against --expect 190, every pair at 60 GB/s → one error PAIRS_ALL_SLOW (shared cause), no node blamed", () => {
    const r = judgePairs(
      fullRound(NODES.slice(0, 4), () => 60),
      { expectGBps: 190 },
    );
    expect(codes(r)).toEqual(["PAIRS_ALL_SLOW pairs"]);
    expect(r.findings[0]!.message).toContain("A cause common to every node");
    expect(r.nodes.every((n) => n.verdict === "ok")).toBe(true);
  });

  test("a pair measured twice counts with its best run; both sources are listed", () => {
    const r = judgePairs([
      { source: "a.txt", hosts: ["gpu-1", "gpu-2"], busbw: 150 },
      { source: "b.txt", hosts: ["gpu-2", "gpu-1"], busbw: 189 },
      { source: "c.txt", hosts: ["gpu-3", "gpu-4"], busbw: 190 },
    ]);
    expect(r.pairs[0]).toEqual({ a: "gpu-1", b: "gpu-2", busbw: 189, sources: ["a.txt", "b.txt"], slow: false });
    expect(r.findings).toEqual([]);
  });

  test("a 3-node run or one without bandwidth → a problem naming the file; a single pair → info PAIRS_TOO_FEW", () => {
    const r = judgePairs([
      { source: "three.txt", hosts: ["gpu-1", "gpu-1", "gpu-2", "gpu-3"], busbw: 170 },
      { source: "empty.txt", hosts: ["gpu-1", "gpu-2"], busbw: null },
      { source: "ok.txt", hosts: ["gpu-1", "gpu-2"], busbw: 190 },
    ]);
    expect(r.problems.map((p) => p.code)).toEqual(["pairs.not_a_pair", "pairs.no_bandwidth"]);
    expect(r.problems[0]!.message).toContain("three.txt: the run's ranks are on 3 host(s) (gpu-1, gpu-2, gpu-3)");
    expect(codes(r)).toEqual(["PAIRS_TOO_FEW pairs"]);
  });

  test("a tolerance outside (0, 1] is refused", () => {
    expect(() => judgePairs([], { tolerance: 1.5 })).toThrow(/tolerance/);
  });

  test("any measurements: never throws, every finding names a measured node or pair", () => {
    const host = fc.constantFrom("n1", "n2", "n3", "n4", "n5");
    const m = fc.record({
      source: fc.constant("f"),
      hosts: fc.array(host, { maxLength: 4 }),
      busbw: fc.option(fc.double({ min: -1, max: 400, noNaN: true })),
    });
    fc.assert(
      fc.property(
        fc.array(m, { maxLength: 20 }),
        fc.option(fc.double({ min: 1, max: 400, noNaN: true })),
        (ms, expect_) => {
          const r = judgePairs(ms, expect_ === null ? {} : { expectGBps: expect_ });
          const known = new Set(r.nodes.map((n) => n.node));
          for (const f of r.findings) {
            const names = f.subject.split("↔");
            expect(f.subject === "pairs" || names.every((n) => known.has(n))).toBe(true);
          }
          expect(r.pairs.length + r.problems.length).toBeLessThanOrEqual(ms.length);
        },
      ),
    );
  });
});

describe("pairFromFileName: an output saved as <a>+<b>.txt names its pair", () => {
  test("gpu-1+gpu-4.txt, logs/node-a.dc1+node-b.dc1.log → the two nodes; anything else → null", () => {
    expect(pairFromFileName("gpu-1+gpu-4.txt")).toEqual(["gpu-1", "gpu-4"]);
    expect(pairFromFileName("logs/node-a.dc1+node-b.dc1.log")).toEqual(["node-a.dc1", "node-b.dc1"]);
    expect(pairFromFileName("round1-gpu-1-gpu-4.txt")).toBeNull();
    expect(pairFromFileName("a+b+c.txt")).toBeNull();
    expect(pairFromFileName("gpu-1+gpu-1.txt")).toBeNull();
    expect(pairFromFileName("+gpu-1.txt")).toBeNull();
  });
});
