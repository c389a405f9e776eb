/**
 * Text reports are lines, and a value cannot start one. Values come from everywhere: a pasted file's name and
 * content (`analyze`, `bench judge`), an API server's strings (`cluster`, `fleet verify`: a hostile or broken server
 * can send any string; label values and messages may hold newlines), a manifest's YAML strings (`lint`; YAML
 * double-quoted scalars carry any character: https://yaml.org/spec/1.2.2/#731-double-quoted-style). A value holding
 * a line break (newline, CR, VT, FF, NEL, U+2028/U+2029) followed by `PASS: 0 error(s)` must show up escaped
 * on the line it belongs to, never as a line of its own. Every text report passes through one place
 * (renderReport, src/report/registry.ts), which puts every value of the result on one line before the kind writes it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { lineSafe, oneLine } from "../src/report/registry.js";
import { fixture } from "./support/html-pages.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { startFakeApi } from "./support/kube/fake-api.js";

const MARK = "FORGED: 0 error(s), PASS";
const BREAKS = ["\n", "\r", "\r\n", "\u000b", "\u000c", "\u0085", "\u2028", "\u2029"];
const NOISE = ["", "'", '"', "#", "---", "$(touch x)", "`id`", "\u001b[2J", " ", "\t", "{a: 1}", "é"];

/** A value that carries a line break and then the forged line: `<noise><break><MARK><noise>`. */
const hostile = fc
  .tuple(fc.constantFrom(...NOISE), fc.constantFrom(...BREAKS), fc.constantFrom(...NOISE))
  .map(([a, br, b]) => `v${a}${br}${MARK}${b}`);

/** Every line of `text`, split at every line break a terminal or pager might honour. */
const linesOf = (text: string) => text.split(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/);

/** The value reached the output (so the check is not vacuous), and no line starts with what it tried to forge. */
function expectNoForgedLine(text: string, what: string): void {
  expect(text, `${what}: the hostile value is not in the output at all`).toContain(MARK);
  for (const line of linesOf(text))
    expect(line.trimStart().startsWith(MARK), `${what}: forged line ${JSON.stringify(line)}`).toBe(false);
}

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-lines-"));
let files = 0;
function write(name: string, text: string): string {
  const sub = join(dir, String(files++));
  mkdirSync(sub);
  const file = join(sub, name);
  writeFileSync(file, text);
  return file;
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("lineSafe: every string of a result on one line", () => {
  test("no string, key or Map entry of the copy holds a line break; the original is untouched", () => {
    const value = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: "small" },
        hostile,
        fc.string(),
        fc.integer(),
        fc.array(tie("tree"), { maxLength: 4 }),
        fc.dictionary(fc.oneof(hostile, fc.string()), tie("tree"), { maxKeys: 4 }),
      ),
    })).tree;
    const strings = (v: unknown): string[] =>
      typeof v === "string"
        ? [v]
        : Array.isArray(v)
          ? v.flatMap(strings)
          : v && typeof v === "object"
            ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)])
            : [];
    fc.assert(
      fc.property(value, (v) => {
        const before = JSON.stringify(v);
        const safe = lineSafe(v);
        for (const s of strings(safe)) expect(s).not.toMatch(/[\n\r\u000b\u000c\u0085\u2028\u2029]/);
        expect(JSON.stringify(v)).toBe(before);
      }),
      { numRuns: 300 },
    );
    const m = lineSafe({ m: new Map([["a\nb", new Set(["c\u2028d"])]]) }).m;
    expect([...m.keys()]).toEqual(["a\\nb"]);
    expect([...m.values()].map((s) => [...s])).toEqual([["c\\u2028d"]]);
  });

  test("a line break is shown as an escape a person can read", () => {
    expect(oneLine(`gpu-1\n${MARK}`)).toBe(`gpu-1\\n${MARK}`);
    expect(oneLine("a\r\nb\u0085c\u2028d")).toBe("a\\r\\nb\\x85c\\u2028d");
  });
});

describe("text reports never let a value start a line", () => {
  test("analyze: a pasted file's name and a host name inside the log", async () => {
    const log = fixture("nccl-logs/ib-merged-2.20.txt");
    await fc.assert(
      fc.asyncProperty(hostile, async (h) => {
        // A file name can hold any byte but NUL and `/`: the label is the name as given.
        const name = `${h.replaceAll("/", "_")}.txt`;
        const file = write(name, log.replaceAll("ib-node-2:", `ib-node-2${h.replace(/[\n\r]/g, "\u2028")}:`));
        const r = await cli(["analyze", file]);
        expectNoForgedLine(r.out, "analyze");
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  test("lint: a manifest's names and values (YAML strings carry any character)", async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (h) => {
        // A manifest lint warns about (a prefix NCCL_IB_HCA list): the warning names the job.
        const manifest = fixture("manifests/bad/ib-hca-prefix.yaml").replace(
          "name: pytorch-swin-transformer-nccl",
          `name: ${JSON.stringify(`pytorch-swin${h}`)}`,
        );
        const r = await cli(["lint", write("job.yaml", manifest)]);
        expectNoForgedLine(r.out, "lint");
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  test("cluster: strings an API server sends (a node's name and labels)", async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (h) => {
        const seed = seedCluster({
          nodes: [node({ name: "gpu-1", gpus: 8, rdma: "1k" }), node({ name: `gpu-2${h}`, gpus: 8, rdma: "1k" })],
        });
        const api = await startFakeApi(seed);
        try {
          const r = await cli(["cluster", "--kubeconfig", api.kubeconfig]);
          expectNoForgedLine(r.out, "cluster");
        } finally {
          await api.close();
        }
      }),
      { numRuns: 10 },
    );
  }, 120_000);

  test("fleet verify (offline, from saved snapshots): a node name from the cluster", async () => {
    const { fleetResult } = await import("./support/fleet-report.js");
    const { renderReport } = await import("../src/report/registry.js");
    const { FLEET_VERIFY_REPORT } = await import("../src/report/kinds/fleet-verify.js");
    await fc.assert(
      fc.asyncProperty(hostile, async (h) => {
        // The eighth node of fleetResult's fleet has a fault: the report names it.
        const names = Array.from({ length: 8 }, (_, i) => `gpu-000${i + 1}${i === 7 ? h : ""}`);
        const result = await fleetResult(names);
        expectNoForgedLine(await renderReport(FLEET_VERIFY_REPORT, result, "text"), "fleet verify");
      }),
      { numRuns: 10 },
    );
  }, 120_000);
});

describe("errors on stderr never let a value start a line", () => {
  test("a path with a line break in a command's error is shown escaped; the error's own lines stay lines", async () => {
    const io = captureIo();
    const code = await main(["verify", "--root", "/nonexistent-kr\nPASS: 0 error(s) forged"], io);
    expect(code).toBe(2);
    expect(io.err).not.toMatch(/^PASS/m);
    expect(io.err).toContain("/nonexistent-kr\\nPASS: 0 error(s) forged");
    // An error of several lines (every schema problem of a facts file on a line of its own) keeps them.
    const dir = mkdtempSync(join(tmpdir(), "kr-usage-lines-"));
    const facts = join(dir, "pod\nPASS.json");
    writeFileSync(facts, JSON.stringify({ kind: "kube-rdma/preflight-facts", schemaVersion: 1 }));
    const io2 = captureIo();
    expect(await main(["preflight", "diff", facts, facts], io2)).toBe(2);
    expect(io2.err).not.toMatch(/^PASS/m);
    expect(io2.err).toContain("pod\\nPASS.json: not pod facts");
    expect(io2.err).toMatch(/^ {2}\$\.hostname: missing$/m);
  });
});
