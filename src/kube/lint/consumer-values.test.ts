/**
 * lint reads a value as its consumer does.
 * - NCCL reads NCCL_IB_DISABLE with strtoll(str, nullptr, 0) (`ncclLoadParam`,
 *   https://github.com/NVIDIA/nccl/blob/master/src/misc/param.cc) and disables IB for any non-zero result.
 * - Kubernetes parses resources and sizeLimit by the quantity grammar of
 *   https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go; `rdma/hca: "0"` asks for no
 *   device at all, and `lots` is refused by the API server.
 * - A pod's volume names are unique (the API server answers `spec.volumes[1].name: Duplicate value`).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { type Document, parseAllDocuments } from "yaml";
import { ncclInteger } from "../../nccl/env-integer.js";
import { parseQuantity } from "../resources.js";
import { lintManifestText } from "./index.js";

const GOOD = readFileSync("fixtures/manifests/good/reference-pytorchjob.yaml", "utf8");
const SPEC = ["spec", "pytorchReplicaSpecs", "Master", "template", "spec"];
const C0 = [...SPEC, "containers", 0];

/** The reference job with one change made through the YAML tree (the fixture's own layout kept). */
function changed(edit: (doc: Doc) => void): string {
  const docs = parseAllDocuments(GOOD) as Doc[];
  edit(docs[0]!);
  return docs.map((d) => d.toString()).join("---\n");
}
type Doc = Document.Parsed;

function codes(text: string): string[] {
  const r = lintManifestText(text, "job.yaml");
  return r.findings.filter((f) => f.severity === "error").map((f) => f.code);
}

describe("NCCL_IB_DISABLE is read as NCCL reads an integer", () => {
  test.each(["1", "01", "2", "0x1", "1 ", " 1", "-1", "1abc"])("%j disables IB → NCCL_IB_DISABLED", (value) => {
    expect(codes(changed((d) => d.setIn([...C0, "env", 1, "value"], value)))).toContain("NCCL_IB_DISABLED");
  });
  test.each(["0", "00", "0x0", "", "no", "08"])("%j leaves IB on (NCCL reads 0) → no finding", (value) => {
    expect(codes(changed((d) => d.setIn([...C0, "env", 1, "value"], value)))).not.toContain("NCCL_IB_DISABLED");
  });
  test("strtoll's base-0 reading: octal after 0, hex after 0x, the digits before a stray character", () => {
    expect([ncclInteger("010"), ncclInteger("0x1f"), ncclInteger("12ab"), ncclInteger("9".repeat(30))]).toEqual([
      8n,
      31n,
      12n,
      null,
    ]);
  });
});

describe("quantities are read as the API server reads them", () => {
  test('rdma/hca: "0" is no RDMA device → CONTAINER_NO_RDMA_RESOURCE', () => {
    expect(codes(changed((d) => d.setIn([...C0, "resources", "limits", "rdma/hca"], "0")))).toContain(
      "CONTAINER_NO_RDMA_RESOURCE",
    );
  });
  test("sizeLimit: lots → BAD_QUANTITY naming the field (not a silent pass of the /dev/shm check)", () => {
    const r = lintManifestText(
      changed((d) => d.setIn([...SPEC, "volumes", 1, "emptyDir", "sizeLimit"], "lots")),
      "job.yaml",
    );
    const bad = r.findings.find((f) => f.code === "BAD_QUANTITY");
    expect(bad?.severity).toBe("error");
    expect(bad?.message).toMatch(/sizeLimit is "lots"/);
  });
  test("a GPU count that is not a quantity → BAD_QUANTITY", () => {
    expect(
      codes(changed((d) => d.setIn([...C0, "resources", "limits", "baidu.com/a100_80g_cgpu"], "eight"))),
    ).toContain("BAD_QUANTITY");
  });
  test("the grammar: suffix or exponent, never both; no spaces", () => {
    expect(["1", "8", "500m", "32Gi", "1e3", ".5", "2.", "+1"].map(parseQuantity)).toEqual([
      1,
      8,
      0.5,
      32 * 2 ** 30,
      1000,
      0.5,
      2,
      1,
    ]);
    expect(["lots", "1 ", " 1", "1e3Gi", "Gi", "1.2.3", "1gi", ""].map(parseQuantity)).toEqual(Array(8).fill(null));
  });
});

describe("volume names are unique", () => {
  test("two volumes named cache-volume → DUPLICATE_VOLUME_NAME", () => {
    const text = changed((d) => d.setIn([...SPEC, "volumes", 0, "name"], "cache-volume"));
    expect(codes(text)).toContain("DUPLICATE_VOLUME_NAME");
  });
  test("the reference job itself has none of these findings", () => {
    expect(codes(GOOD)).toEqual([]);
  });
});
