import { describe, expect, test } from "vitest";
import { hostileLines } from "../../test/support/property.js";
import { parseIbdev2netdev } from "./ibdev2netdev.js";
import { parseIbstat } from "./ibstat.js";
import { parseIbvDevinfo } from "./ibv-devinfo.js";
import { parseNvidiaSmiTable } from "./nvidia-smi-table.js";
import { parseNvidiaSmiTopo } from "./nvidia-smi-topo.js";
import { parseShowGids } from "./show-gids.js";

const PARSERS = {
  parseShowGids,
  parseIbvDevinfo,
  parseIbstat,
  parseIbdev2netdev,
  parseNvidiaSmiTopo,
  parseNvidiaSmiTable,
};

describe("hostile input", () => {
  for (const [name, parse] of Object.entries(PARSERS)) {
    test(`${name} returns problems for 200k-character lines instead of hanging`, () => {
      for (const line of hostileLines()) {
        const r = parse(`${line}\n${line}\n`);
        expect(r.ok || r.problems.length > 0).toBe(true);
      }
    });
  }
});
