import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { NcclDistance, NodeInventory, PhysState, PortState } from "../inventory/types.js";
import { CATALOGUE, CHECKS, runChecks } from "./index.js";
import { gid, seedGids, seedInventory, setGids } from "./testing/seed-inventory.js";

const STATES: PortState[] = ["NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER", "UNKNOWN"];
const PHYS: PhysState[] = ["Sleep", "Polling", "Disabled", "LinkUp", "LinkErrorRecovery", "PhyTest", "UNKNOWN"];
const DISTANCES: NcclDistance[] = ["PIX", "PXB", "PHB", "SYS"];

/** What a rule must never print by itself: a value it failed to fill in. */
const UNFILLED = /undefined|NaN|\[object Object\]/;

/**
 * Free text a node can report (a firmware version, a problem's words). A node's own text is quoted as it is, so a
 * firmware literally named "NaN" would look like an unfilled value: the generator leaves those words out.
 */
const reportedText = fc.string().filter((s) => !UNFILLED.test(s));

/** One random fault (or oddity) applied to a seed node. */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant("port"),
    hca: fc.nat(8),
    state: fc.constantFrom(...STATES),
    phys: fc.constantFrom(...PHYS),
  }),
  fc.record({ kind: fc.constant("rate"), hca: fc.nat(8), rate: fc.option(fc.constantFrom(0, 25, 100, 200, 400)) }),
  fc.record({
    kind: fc.constant("gids"),
    hca: fc.nat(8),
    keep: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    shift: fc.nat(250),
  }),
  fc.record({ kind: fc.constant("ib"), hca: fc.nat(8) }),
  fc.record({ kind: fc.constant("role"), hca: fc.nat(8), role: fc.constantFrom("management", "data", "excluded") }),
  fc.record({ kind: fc.constant("drop-hca"), hca: fc.nat(8) }),
  fc.record({ kind: fc.constant("fw"), hca: fc.nat(8), fw: fc.option(reportedText) }),
  fc.record({ kind: fc.constant("gpu"), gpu: fc.nat(7), width: fc.option(fc.nat(32)), gen: fc.option(fc.nat(6)) }),
  fc.record({ kind: fc.constant("gpu-null"), gpu: fc.nat(7) }),
  fc.record({ kind: fc.constant("drop-gpu"), gpu: fc.nat(7) }),
  fc.record({ kind: fc.constant("path"), gpu: fc.nat(7), distance: fc.constantFrom(...DISTANCES) }),
  fc.record({
    kind: fc.constant("counter"),
    hca: fc.nat(8),
    name: fc.constantFrom("symbol_error", "out_of_sequence", "x"),
    value: fc.nat(),
  }),
  fc.record({
    kind: fc.constant("pod"),
    memlock: fc.option(fc.oneof(fc.nat(), fc.constant("unlimited" as const))),
    ipc: fc.option(fc.boolean()),
    shm: fc.option(fc.nat()),
  }),
  fc.record({
    kind: fc.constant("software"),
    ofed: fc.constantFrom("present", "absent", "error"),
    driver: fc.constantFrom("ok", "absent", "error", "timeout", "unavailable"),
  }),
  fc.record({ kind: fc.constant("problem"), code: reportedText, message: reportedText, path: fc.option(reportedText) }),
  fc.record({ kind: fc.constant("empty") }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function apply(inv: NodeInventory, m: Mutation): void {
  const hca = "hca" in m ? inv.hcas[m.hca % Math.max(1, inv.hcas.length)] : undefined;
  const port = hca?.ports[0];
  const gpu = "gpu" in m && typeof m.gpu === "number" ? inv.gpus[m.gpu % Math.max(1, inv.gpus.length)] : undefined;
  switch (m.kind) {
    case "port":
      if (port) Object.assign(port, { state: m.state, physState: m.phys });
      break;
    case "rate":
      if (port) port.rateGbps = m.rate;
      break;
    case "gids":
      if (port)
        setGids(
          port,
          seedGids(m.hca % 9)
            .filter((_, i) => m.keep[i])
            .map((g) => ({ ...g, index: g.index + m.shift })),
        );
      break;
    case "ib":
      if (port) {
        port.linkLayer = "InfiniBand";
        setGids(port, [gid(0, "fe80:0000:0000:0000:0c42:a103:00aa:0001", "v1", null)]);
      }
      break;
    case "role":
      if (hca) hca.role = m.role;
      break;
    case "drop-hca":
      inv.hcas.splice(m.hca % Math.max(1, inv.hcas.length), 1);
      break;
    case "fw":
      if (hca) hca.fwVer = m.fw;
      break;
    case "gpu":
      if (gpu) Object.assign(gpu, { pcieWidth: { current: m.width, max: 16 }, pcieGen: { current: m.gen, max: 4 } });
      break;
    case "gpu-null":
      if (gpu)
        Object.assign(gpu, {
          pcieWidth: { current: null, max: null },
          link: null,
          remappedRows: null,
          eccVolatileUncorrected: null,
        });
      break;
    case "drop-gpu":
      inv.gpus.splice(m.gpu % Math.max(1, inv.gpus.length), 1);
      break;
    case "path":
      inv.paths = inv.paths.map((p) => (p.gpu === m.gpu ? { ...p, distance: m.distance } : p));
      break;
    case "counter":
      if (port) port.counters[m.name] = m.value;
      break;
    case "pod":
      Object.assign(inv.process, { memlockSoft: m.memlock, ipcLock: m.ipc });
      inv.shmBytes = m.shm;
      break;
    case "software":
      inv.ofed.status = m.ofed;
      inv.driver.status = m.driver;
      break;
    case "problem":
      inv.problems.push(
        m.path === null ? { code: m.code, message: m.message } : { code: m.code, message: m.message, path: m.path },
      );
      break;
    case "empty":
      Object.assign(inv, { hcas: [], gpus: [], paths: [], netdevs: [] });
      break;
  }
}

describe("rules on odd nodes", () => {
  test("any mix of faults gives catalogued findings with real words, never a throw", () => {
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 8 }), fc.boolean(), (mutations, pod) => {
        const inv = seedInventory();
        for (const m of mutations) apply(inv, m);
        const findings = runChecks(inv, { pod, expectGpus: 8, expectGpuModel: "A100" });
        for (const f of findings) {
          expect(Object.keys(CATALOGUE)).toContain(f.code);
          expect(["error", "warning", "info"]).toContain(f.severity);
          expect(f.subject).not.toBe("");
          expect(`${f.message} ${f.fix}`).not.toMatch(UNFILLED);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("every code a rule declares is in the catalogue, and every catalogue code belongs to a rule", () => {
    // CHECK_SKIPPED is shared by the rules that can lack their data.
    const declared = new Set(CHECKS.flatMap((c) => c.codes));
    expect([...declared].sort()).toEqual(Object.keys(CATALOGUE).sort());
  });
});
