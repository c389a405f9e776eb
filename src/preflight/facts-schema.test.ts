/**
 * Pod facts are validated against their published schema (docs/preflight-facts.schema.json) before anything
 * judges them (issue 27): the facts the tool writes validate; damaged facts are exit 2 with the JSON path of each
 * violation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { listExamples } from "../examples/index.js";
import { openReader } from "../host/index.js";
import { readPodFacts } from "./read.js";
import { factsProblems } from "./report.js";
import { factsViolations, MAX_VIOLATIONS, PREFLIGHT_FACTS_SCHEMA } from "./schema.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-facts-schema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("the facts the tool writes validate against the published schema", () => {
  test("docs/preflight-facts.schema.json is the schema the code validates with", () => {
    expect(JSON.parse(readFileSync("docs/preflight-facts.schema.json", "utf8"))).toEqual(
      JSON.parse(JSON.stringify(PREFLIGHT_FACTS_SCHEMA)),
    );
  });

  test("preflight --facts-only -o json of every example validates", async () => {
    const names = listExamples().map((e) => e.name);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      const r = await run(["preflight", "--facts-only", "--example", name, "-o", "json"]);
      expect(r.code, name).toBe(0);
      expect(factsViolations(JSON.parse(r.out)), name).toEqual([]);
    }
  }, 60_000);
});

describe("damaged facts → exit 2 with the JSON path of each violation", () => {
  const attacks: [string, (f: Record<string, unknown>) => void, string[]][] = [
    ["netdevs missing", (f) => delete f.netdevs, ["$.netdevs: missing"]],
    [
      "netdevs a string",
      (f) => (f.netdevs = "eth0"),
      ['$.netdevs: expected a list of at most 65536 interfaces, found "eth0"'],
    ],
    [
      "garbage memlock",
      (f) => (f.memlock = { soft: "lots", hard: -1 }),
      [
        '$.memlock.soft: expected a number of bytes, "unlimited" or null, found "lots"',
        '$.memlock.hard: expected a number of bytes, "unlimited" or null, found -1',
      ],
    ],
    ['ipcLock: "yes"', (f) => (f.ipcLock = "yes"), ['$.ipcLock: expected true, false or null, found "yes"']],
    [
      "nccl.libraries missing",
      (f) => delete (f.nccl as Record<string, unknown>).libraries,
      ["$.nccl.libraries: missing"],
    ],
    [
      "all of them at once",
      (f) => {
        delete f.netdevs;
        f.ipcLock = "yes";
        (f.memlock as Record<string, unknown>).soft = "lots";
        delete (f.nccl as Record<string, unknown>).libraries;
      },
      ["$.netdevs: missing", "$.ipcLock: expected", "$.memlock.soft: expected", "$.nccl.libraries: missing"],
    ],
  ];

  test.each(attacks)("facts with %s", async (_name, edit, expected) => {
    const good = join(dir, "good.json");
    const seed = await run(["preflight", "--facts-only", "--example", "training-pod", "-o", "json"]);
    writeFileSync(good, seed.out);
    const facts = JSON.parse(seed.out) as Record<string, unknown>;
    edit(facts);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify(facts));
    const r = await run(["preflight", "diff", good, bad]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain("bad.json: not pod facts as docs/preflight-facts.schema.json describes them");
    for (const line of expected) expect(r.err).toContain(`  ${line}`);
    expect(r.err).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  test("a file wrong everywhere names at most MAX_VIOLATIONS places", async () => {
    const good = await readPodFacts(await openReader({ example: "training-pod" }));
    const bad = { ...good, netdevs: Array.from({ length: 500 }, () => ({ name: 1 })) };
    const problems = factsProblems(bad);
    expect(problems.length).toBe(MAX_VIOLATIONS);
    expect(problems[0]).toMatch(/^\$\.netdevs\[0\]/);
  });

  test("another document (a snapshot) is one sentence, not a list of violations", () => {
    expect(factsProblems({ kind: "kube-rdma/snapshot" })).toEqual([
      'not pod facts (expected "kind": "kube-rdma/preflight-facts")',
    ]);
  });
});
