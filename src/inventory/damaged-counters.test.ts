/**
 * Counter files that are not plain decimals (issue 27): `12abc`, `1e309`, `0x10`, `-5`, an empty file, 21 digits.
 * Each is a READ_PROBLEM naming the file, never a number the error-counter check trusts, from a snapshot and from a
 * --root tree alike.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { exampleSnapshot, materializedExample } from "../../test/support/examples.js";
import { captureIo } from "../../test/support/io.js";
import { runChecks } from "../checks/index.js";
import { main } from "../cli/main.js";
import { SnapshotHostReader } from "../host/index.js";
import { parseCounter } from "../parse/sysfs.js";
import { readInventory } from "./index.js";

const DAMAGED = ["12abc", "1e309", "0x10", "-5", "", "\n", " 7", "123456789012345678901", "Infinity", "1.5"];
const PORT = "/sys/class/infiniband/mlx5_0/ports/1";

describe("parseCounter: plain decimal digits or a damaged counter", () => {
  test.each(DAMAGED)("damaged counter %j is refused naming the file", (text) => {
    const r = parseCounter(text, `${PORT}/counters/symbol_error`);
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.code).toBe("sysfs.counter");
    expect(r.problems[0]?.message).toContain(`${PORT}/counters/symbol_error: damaged counter`);
  });
  test.each([
    ["0\n", 0],
    ["1234\n", 1234],
    ["18446744073709551615\n", Number("18446744073709551615")],
  ])("the kernel's %j is %d", (text, n) => {
    expect(parseCounter(text)).toEqual({ ok: true, value: n, problems: [] });
  });
});

describe("damaged counters in a snapshot → a finding naming the file, not a number", () => {
  test.each([
    ["counters", "symbol_error"],
    ["hw_counters", "out_of_sequence"],
  ])("a damaged %s/%s", async (dir, name) => {
    for (const value of DAMAGED) {
      const s = structuredClone(exampleSnapshot("a100-8x-roce"));
      const path = `${PORT}/${dir}/${name}`;
      expect(s.files[path]).toBeDefined();
      s.files[path] = value;
      const inv = await readInventory(new SnapshotHostReader(s, "test"));
      const port = inv.hcas.find((h) => h.name === "mlx5_0")?.ports[0];
      expect(dir === "counters" ? port?.counters : port?.hwCounters).not.toHaveProperty(name);
      const findings = runChecks(inv);
      const f = findings.find((x) => x.code === "READ_PROBLEM" && x.subject === path);
      expect(f?.message, `value ${JSON.stringify(value)}`).toMatch(/damaged counter: expected plain decimal digits/);
      expect(findings.some((x) => x.code === "PORT_ERROR_COUNTERS" || x.code === "ROCE_COUNTERS")).toBe(false);
    }
  });
});

describe("damaged counters in a --root tree → verify names the file", () => {
  test("verify --root with counters/link_downed = '-5' and hw_counters/packet_seq_err = '1e309'", async () => {
    const tree = materializedExample("a100-8x-roce");
    try {
      writeFileSync(join(tree.dir, `${PORT}/counters/link_downed`), "-5\n");
      writeFileSync(join(tree.dir, `${PORT}/hw_counters/packet_seq_err`), "1e309\n");
      const io = captureIo();
      const code = await main(["verify", "--root", tree.dir, "--strict", "-o", "json"], io);
      expect(code).toBe(1);
      const report = JSON.parse(io.out) as { findings: { code: string; subject: string; message: string }[] };
      const damaged = report.findings.filter((f) => f.code === "READ_PROBLEM").map((f) => f.subject);
      expect(damaged).toEqual(
        expect.arrayContaining([`${PORT}/counters/link_downed`, `${PORT}/hw_counters/packet_seq_err`]),
      );
    } finally {
      tree.cleanup();
    }
  });
});
