/**
 * `preflight diff` compares pods in time linear in their HCAs (issue 27): each pod's HCAs are looked up by name in
 * a map, never found by a scan per name. 200,000 HCAs per pod, every one a data HCA, compare in a few seconds.
 */
import { describe, expect, test } from "vitest";
import { openReader } from "../host/index.js";
import { comparePods } from "./compare.js";
import { readPodFacts } from "./read.js";
import type { Member, PodFacts, PodHca } from "./types.js";

const HCAS = 200_000;

/** `base` with `n` data HCAs; every 1000th has GID index `oddIndex` and its own subnet. */
function withHcas(base: PodFacts, n: number, oddIndex: number): PodFacts {
  const template = base.hcas.find((h) => h.role === "data")!;
  const hcas: PodHca[] = Array.from({ length: n }, (_, i) => ({
    ...template,
    name: `mlx5_${i}`,
    uverbs: [{ device: `uverbs${i}`, open: "ok" }],
    roceV2Ipv4Index: i % 1000 === 0 ? oddIndex : 3,
    subnet: i % 1000 === 0 && oddIndex !== 3 ? `10.${i % 250}.0.0/24` : "25.11.128.0/27",
  }));
  return { ...base, hcas, dataHcas: hcas.map((h) => h.name) };
}

describe("preflight diff with 200,000 HCAs per pod", () => {
  test("finishes in a few seconds of CPU and still names every HCA whose GID index differs", async () => {
    const base = await readPodFacts(await openReader({ example: "training-pod" }));
    const members: Member[] = [
      { name: "w-0", facts: withHcas(base, HCAS, 3) },
      { name: "w-1", facts: withHcas(base, HCAS, 5) },
    ];
    // CPU time, not wall time: a loaded CI machine stretches the wall clock, never the work done. A scan per name
    // (the old way) is 200,000² lookups: hours.
    const cpu = process.cpuUsage();
    const findings = comparePods(members);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(5000);
    const gid = findings.filter((f) => f.code === "PREFLIGHT_GID_INDEX_DIFFERS");
    expect(gid.length).toBe(HCAS / 1000);
    expect(gid[0]?.subject).toMatch(/: mlx5_0$/);
    expect(findings.filter((f) => f.code === "PREFLIGHT_SUBNET_DIFFERS").length).toBe(HCAS / 1000);
  }, 30_000);
});
