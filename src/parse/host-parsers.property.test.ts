import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ParseResult } from "../core/result.js";
import { renderNvidiaSmiXml } from "../examples/nvidia-smi-xml.js";
import { parseIpRule } from "./ip-rule.js";
import { parseNvidiaSmiXml } from "./nvidia-smi-xml.js";
import { parseNvlinkStatus } from "./nvlink-status.js";
import { parseOfedInfo } from "./ofed-info.js";
import { parseCapEff, parseDefaultRouteInterface, parseMemlock } from "./proc.js";
import {
  parseGid,
  parseGidType,
  parseLinkLayer,
  parseNumaNode,
  parsePcieSpeed,
  parsePhysState,
  parsePortState,
  parseRate,
  parseSysfsHex,
  parseSysfsInt,
} from "./sysfs.js";

const PARSERS: [string, (t: string) => ParseResult<unknown>][] = [
  ["state", (t) => parsePortState(t)],
  ["phys_state", (t) => parsePhysState(t)],
  ["rate", (t) => parseRate(t)],
  ["link_layer", (t) => parseLinkLayer(t)],
  ["gid", (t) => parseGid(t)],
  ["gid type", (t) => parseGidType(t)],
  ["int", (t) => parseSysfsInt(t)],
  ["hex", (t) => parseSysfsHex(t)],
  ["numa", (t) => parseNumaNode(t)],
  ["pcie speed", (t) => parsePcieSpeed(t)],
  ["ofed_info", parseOfedInfo],
  ["nvidia-smi xml", parseNvidiaSmiXml],
  ["route", parseDefaultRouteInterface],
  ["capeff", parseCapEff],
  ["memlock", parseMemlock],
  ["nvidia-smi nvlink -s", parseNvlinkStatus],
  ["ip -4 rule show", parseIpRule],
];

const SAMPLE_XML = renderNvidiaSmiXml({
  driverVersion: "470.141.03",
  cudaVersion: "11.4",
  gpus: [0, 1].map((i) => ({
    busId: `00000000:5${i}:00.0`,
    name: "NVIDIA A100-SXM4-80GB",
    uuid: `GPU-${i}`,
    memoryTotalMiB: 81251,
    minorNumber: i,
  })),
});
const SAMPLES = [
  "4: ACTIVE\n",
  "5: LinkUp\n",
  "200 Gb/sec (4X HDR)\n",
  "0000:0000:0000:0000:0000:ffff:190b:8002\n",
  "RoCE v2\n",
  "MLNX_OFED_LINUX-5.8-1.1.2.1:\n",
  "CapEff:\t000001ffffffffff\n",
  "Max locked memory unlimited unlimited bytes\n",
  SAMPLE_XML,
];

/** Random edits of a real sample: cut, splice garbage, duplicate. */
const mutated = fc
  .tuple(
    fc.constantFrom(...SAMPLES),
    fc.nat(),
    fc.nat(),
    fc.string({ unit: fc.constantFrom("<", ">", "/", ":", "\n", "\t", "a", "0", "f", " ", "&", "\u0000", "é") }),
  )
  .map(([s, a, b, junk]) => {
    const i = a % (s.length + 1);
    const j = i + (b % (s.length - i + 1));
    return s.slice(0, i) + junk + s.slice(j);
  });

describe("every host-value parser takes any input and returns data, never throws", () => {
  test.each(PARSERS)("%s on random and mutated input", (_name, parse) => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), mutated), (input) => {
        const r = parse(input);
        expect(typeof r.ok).toBe("boolean");
        expect(Array.isArray(r.problems)).toBe(true);
        if (!r.ok) expect(r.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  test("a GID that parses always re-reads as the same 8 groups and a decodable IPv4", () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16).padStart(4, "0"));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const text = groups.join(":");
        const r = parseGid(text);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.value.gid).toBe(text);
        if (r.value.ipv4) expect(r.value.ipv4).toMatch(/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
      }),
    );
  });
});
