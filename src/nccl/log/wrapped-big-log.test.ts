import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { WRAPS } from "../../analyze/wrappers.js";
import { analyzeNcclLog } from "./analyzer.js";
import { analyzeNcclLogFile } from "./file.js";
import { analyzeNcclLogChunks } from "./segments.js";

/**
 * The big-log paths (a file read in parallel byte ranges, a pipe cut into segments for worker threads) never hold the
 * whole text, so they cannot run the normalisation layer over it: they rely on the per-line prefix skipping of the
 * scanner. This holds them to the same facts as the clean log, for every wrapper users' pastes carry.
 */
const dir = mkdtempSync(join(tmpdir(), "kube-rdma-wrapped-log-"));
const CLEAN = ["roce-2node-gdr-2.23-mpi.txt", "gdr-partial-2.18.txt", "reg-enomem-memlock-2.21.txt"]
  .map((f) => readFileSync(join("fixtures/nccl-logs", f), "utf8"))
  .join("\n");

type Facts = Record<string, unknown>;
function factsOf(r: ReturnType<typeof analyzeNcclLog>): Facts {
  const d = r.data;
  return {
    verdict: d.verdict,
    network: d.network,
    ncclVersions: d.ncclVersions,
    ranks: d.ranks,
    nNodes: d.nNodes,
    hosts: d.hosts,
    connections: d.connections,
    devices: d.devices,
    warnings: d.warnings.map((w) => `${w.code}×${w.count}`),
    findings: r.findings.map((f) => `${f.code}:${f.severity}`).sort(),
  };
}

async function* chunksOf(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const clean = factsOf(analyzeNcclLog(CLEAN));

describe("a wrapped big log gives the same facts as the clean one (file parts and pipe segments)", () => {
  test("the clean log has facts to compare", () => {
    expect(clean.verdict).not.toBe("unknown");
    expect((clean.warnings as string[]).length).toBeGreaterThan(0);
  });
  test.each(WRAPS.map((w) => [w.name, w] as const))("%s", async (_name, wrap) => {
    const wrapped = wrap.apply(CLEAN);
    const path = join(dir, `${wrap.name.replace(/\W+/g, "-")}.log`);
    writeFileSync(path, wrapped);
    expect(factsOf(await analyzeNcclLogFile(path, {}, { threads: 3 }))).toEqual(clean);
    expect(factsOf(await analyzeNcclLogChunks(chunksOf(wrapped, 4093), {}, { threads: 2 }))).toEqual(clean);
  });
});
