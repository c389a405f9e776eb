/**
 * parsePerftest on anything: data or problems, never a throw or a hang (design habit 9). Inputs: random text, the
 * perftest fixtures cut at any line (a run killed mid-table), and hostile lines (huge, control characters).
 */
import fc from "fast-check";
import { expect, test } from "vitest";
import { fixtureText } from "../../test/support/fixtures.js";
import { hostileLines } from "../../test/support/property.js";
import { parsePerftest } from "./perftest.js";

const LOOP = fixtureText("host-commands/perftest", "write-bw-loop-8nics-mlx5_5-slow.txt");
const SIZES = fixtureText("host-commands/perftest", "read-bw-mlx5_3-400g-all-sizes.txt");

test("any text, a capture cut at any line, or hostile lines: data or problems, never a throw", () => {
  const lines = [...LOOP.split("\n"), ...SIZES.split("\n")];
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.nat(lines.length).map((n) => lines.slice(0, n).join("\n")),
        fc.constantFrom(...hostileLines()),
      ),
      (t) => {
        const r = parsePerftest(t);
        expect(r.ok || r.problems.length > 0).toBe(true);
        if (r.ok) for (const run of r.value.runs) expect(run.rows.length).toBeGreaterThan(0);
      },
    ),
  );
});

test("a run cut after its table header: a problem naming the device, the complete runs kept", () => {
  const cut = LOOP.slice(0, LOOP.indexOf(" 65536", LOOP.indexOf("mlx5_3")));
  const r = parsePerftest(cut);
  expect(r.ok && r.value.runs.map((x) => x.device)).toEqual(["mlx5_1", "mlx5_2"]);
  expect(r.problems.map((p) => p.message)).toEqual([
    expect.stringContaining("mlx5_3: a result header and no result row"),
  ]);
});
