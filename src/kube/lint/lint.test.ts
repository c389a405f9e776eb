import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { main } from "../../cli/main.js";
import { lintManifestText } from "./index.js";

const dir = "fixtures/manifests";

type Json = {
  findings: {
    code: string;
    severity: string;
    file: string;
    document: number;
    kind: string;
    name: string;
    container: string | null;
    field: string;
    line: number | null;
  }[];
  summary: { status: string };
};

async function lint(...args: string[]) {
  const io = captureIo();
  const code = await main(["lint", "-o", "json", ...args], io);
  return { code, io, report: io.out ? (JSON.parse(io.out) as Json) : undefined };
}

const BAD: [file: string, code: string, container: string | null, field: RegExp][] = [
  ["no-rdma-resource", "CONTAINER_NO_RDMA_RESOURCE", "pytorch", /containers\[0\]\.resources\.limits$/],
  ["no-ipc-lock", "NO_IPC_LOCK", "pytorch", /containers\[0\]\.securityContext\.capabilities\.add$/],
  ["no-shm", "SHM_MISSING", "pytorch", /containers\[0\]\.volumeMounts$/],
  ["shm-disk", "SHM_NOT_MEMORY", "pytorch", /spec\.volumes\[1\]$/],
  ["shm-small", "SHM_SMALL", "pytorch", /volumes\[1\]\.emptyDir\.sizeLimit$/],
  ["ib-disabled", "NCCL_IB_DISABLED", "pytorch", /containers\[0\]\.env\[1\]\.value$/],
  ["nccl-net-socket", "NCCL_NET_SOCKET", "pytorch", /containers\[0\]\.env\[0\]\.value$/],
  ["ib-hca-prefix", "NCCL_IB_HCA_PREFIX", "pytorch", /env\[0\]\.value$/],
  ["ib-hca-management", "NCCL_IB_HCA_MANAGEMENT", "pytorch", /env\[0\]\.value$/],
  ["hostnetwork-no-dns", "HOSTNETWORK_DNS", null, /template\.spec\.hostNetwork$/],
  ["no-gang-scheduler", "NOT_GANG_SCHEDULED", null, /Master\.template\.spec\.schedulerName$/],
  ["gpu-count-differs", "GPU_COUNT_DIFFERS", null, /Master\.template\.spec$/],
  ["sidecar-not-disabled", "SIDECAR_NOT_DISABLED", null, /template\.metadata\.annotations$/],
  // sudo's env_reset drops the injected variables (sudoers(5), "env_reset"); a plain sh -c keeps them.
  ["sudo-wrapper", "ENV_DROPPED_BY_LAUNCHER", "pytorch", /containers\[0\]\.command$/],
];

describe("lint: each failure pattern on its own fixture", () => {
  test.each(BAD)("bad/%s.yaml → %s, located to object, container and field", async (name, code, container, field) => {
    const file = `${dir}/bad/${name}.yaml`;
    const { report } = await lint(file);
    const findings = report!.findings.filter((f) => f.severity !== "info");
    expect(new Set(findings.map((f) => f.code))).toEqual(new Set([code]));
    const f = findings[0]!;
    expect(f).toMatchObject({
      file,
      document: 1,
      kind: "PyTorchJob",
      name: "pytorch-swin-transformer-nccl",
      container,
    });
    expect(f.field).toMatch(field);
    expect(f.line).toBeGreaterThan(1);
  });

  test("the text report names file:line, document, object, container, field and the fix", async () => {
    const io = captureIo();
    expect(await main(["lint", `${dir}/bad/ib-disabled.yaml`], io)).toBe(1);
    expect(io.out).toMatch(
      /ERROR {3}NCCL_IB_DISABLED fixtures\/manifests\/bad\/ib-disabled\.yaml:\d+ \(document 1, PyTorchJob\/pytorch-swin-transformer-nccl, container pytorch\)/,
    );
    expect(io.out).toMatch(
      /field: spec\.pytorchReplicaSpecs\.Master\.template\.spec\.containers\[0\]\.env\[1\]\.value/,
    );
    expect(io.out).toMatch(/fix: Set NCCL_IB_DISABLE to "0"/);
  });

  test("the good manifests pass; the PVC next to the seed's job is skipped with a note", async () => {
    const { code, report } = await lint(`${dir}/good/reference-pytorchjob.yaml`, `${dir}/good/hostnetwork-mpijob.yaml`);
    expect(report!.findings.map((f) => `${f.severity}:${f.code}:${f.kind}`)).toEqual([
      "info:UNKNOWN_KIND:PersistentVolumeClaim",
    ]);
    expect(report!.findings[0]!.document).toBe(2);
    expect(code).toBe(0);
  });
});

describe("lint: input it cannot read", () => {
  test("invalid YAML → exit 2 with file, line and column", async () => {
    const io = captureIo();
    expect(await main(["lint", `${dir}/bad/invalid-yaml.yaml`], io)).toBe(2);
    expect(io.out).toMatch(/invalid-yaml\.yaml:9:\d+: invalid YAML in document 1/);
    expect(io.out).toMatch(/^FAIL: .*1 input problem\(s\), those documents were not checked$/m);
    expect(io.out).not.toMatch(/^PASS/m);
  });

  test("an unclosed flow map, which the YAML parser reports three times at one place, is one problem", async () => {
    const io = captureIo("{{{ not yaml\n");
    expect(await main(["lint", "-"], io)).toBe(2);
    expect(io.out.match(/invalid YAML in document 1/g)).toHaveLength(1);
    expect(io.out).toMatch(/1 input problem\(s\), those documents were not checked$/m);
  });

  test("`true | kube-rdma lint -` (a failed helm template in a pipe) is not a PASS: exit 2, saying the input was empty", async () => {
    for (const empty of ["", "# rendered nothing\n---\n"]) {
      const io = captureIo(empty);
      expect(await main(["lint", "-"], io)).toBe(2);
      expect(io.out).toContain("<stdin>: no manifest in it");
      expect(io.out).not.toMatch(/^PASS/m);
      const json = captureIo(empty);
      expect(await main(["lint", "-", "-o", "json"], json)).toBe(2);
      expect(JSON.parse(json.out).summary.status).toBe("fail");
    }
  });

  test("a missing file is a usage error naming it", async () => {
    const io = captureIo();
    expect(await main(["lint", "nope.yaml"], io)).toBe(2);
    expect(io.err).toMatch(/cannot read nope\.yaml: no such file/);
  });

  test("- reads standard input; pod templates are found in Deployments, StatefulSets, Jobs and Volcano Jobs", async () => {
    const yaml = [
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: trainer}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: t\n        image: x\n        env: [{name: NCCL_NET, value: Socket}]\n",
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec:\n  schedulerName: volcano\n  tasks:\n  - name: w\n    replicas: 1\n    template:\n      spec:\n        containers: [{name: c, image: x, env: [{name: NCCL_IB_DISABLE, value: '1'}]}]\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {}\n",
    ].join("---\n");
    const io = captureIo(yaml);
    expect(await main(["lint", "-", "-o", "json"], io)).toBe(1);
    const report = JSON.parse(io.out) as Json;
    expect(report.findings.map((f) => `${f.document}:${f.kind}/${f.name}:${f.code}`)).toEqual([
      "1:StatefulSet/trainer:NCCL_NET_SOCKET",
      "2:Job/vj:NCCL_IB_DISABLED",
      "3:ConfigMap/cm:UNKNOWN_KIND",
    ]);
    expect(report.findings[0]!.file).toBe("<stdin>");
  });

  test("garbage and mutated manifests give findings or problems, never a throw", () => {
    const good = readFileSync(`${dir}/good/reference-pytorchjob.yaml`, "utf8");
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.nat(good.length), fc.nat(200), (junk, at, cut) => {
        const mutated = good.slice(0, at) + junk + good.slice(Math.min(good.length, at + cut));
        const r = lintManifestText(mutated, "m.yaml");
        expect(Array.isArray(r.findings)).toBe(true);
        lintManifestText(junk, "j.yaml");
      }),
      { numRuns: 200 },
    );
  });
});

test("a manifest with a key given twice is refused with its line (kubectl's strict field validation refuses it too)", async () => {
  const { parseManifests } = await import("./documents.js");
  const r = parseManifests("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n", "dup.yaml");
  expect(r.documents).toEqual([]);
  expect(r.problems).toMatchObject([{ code: "yaml.invalid", line: 5 }]);
});

describe("lint: the text report", () => {
  test("a small /dev/shm on Master and Worker prints SHM_SMALL once, under both places with their fields", async () => {
    const io = captureIo();
    expect(await main(["lint", `${dir}/bad/shm-small.yaml`], io)).toBe(0);
    expect(io.out.match(/SHM_SMALL/g)).toHaveLength(1);
    expect(io.out.match(/limits \/dev\/shm to/g)).toHaveLength(1);
    expect(io.out).toMatch(/SHM_SMALL fixtures\/manifests\/bad\/shm-small\.yaml:\d+ \(document 1, PyTorchJob\//);
    expect(io.out).toMatch(/\n {4}and fixtures\/manifests\/bad\/shm-small\.yaml:\d+ \(document 1, PyTorchJob\//);
    expect(io.out).toContain("field: spec.pytorchReplicaSpecs.Master.template.spec.volumes[1].emptyDir.sizeLimit");
    expect(io.out).toContain("field: spec.pytorchReplicaSpecs.Worker.template.spec.volumes[1].emptyDir.sizeLimit");
    expect(io.out).toMatch(/WARN: 0 error\(s\), 2 warning\(s\)/);
  });
});

describe("lint: input that holds no Kubernetes object is never a PASS", () => {
  test("a Helm values file passed by mistake → exit 2, document 1 is not a Kubernetes object (a mapping without kind)", async () => {
    const io = captureIo("image:\n  repository: trainer\nreplicas: 2\n");
    expect(await main(["lint", "-"], io)).toBe(2);
    expect(io.out).toMatch(
      /<stdin>:1: document 1 is not a Kubernetes object: .*a mapping without kind \(keys image, replicas\)/,
    );
    expect(io.out).toMatch(/helm template/);
    expect(io.out).not.toMatch(/^PASS/m);
  });

  test("a YAML list, a bare string and binary junk → each a lint.not_manifest problem, nothing called '(no kind) skipped'", () => {
    const junk = String.fromCharCode(0xfffd, 1, 2, 0x41, 0xfffd, 7);
    for (const [text, found] of [
      ["- a\n- b\n", /a list of 2 item\(s\)/],
      ["just a string\n", /a string \("just a string"\)/],
      [junk, /characters of binary data, not text/],
    ] as const) {
      const r = lintManifestText(text, "x.yaml");
      expect(r.findings).toEqual([]);
      expect(r.problems.map((p) => p.code)).toEqual(["lint.not_manifest"]);
      expect(r.problems[0]?.message).toMatch(found);
    }
  });

  test("a ConfigMap beside a job is still only skipped (info), not an input problem", () => {
    const r = lintManifestText("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n", "cm.yaml");
    expect(r.problems).toEqual([]);
    expect(r.findings.map((f) => f.code)).toEqual(["UNKNOWN_KIND"]);
  });
});

describe("lint: a workload whose pod template cannot be read is an error, not a PASS with nothing checked", () => {
  const job = (replicaSpecs: string) =>
    `apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: train}\nspec:\n  pytorchReplicaSpecs:${replicaSpecs}\n`;
  const located = (text: string) =>
    lintManifestText(text, "j.yaml").findings.map((f) => `${f.code} ${f.field}: ${f.message}`);

  test("a PyTorchJob with empty pytorchReplicaSpecs → NO_POD_TEMPLATE at spec.pytorchReplicaSpecs", () => {
    expect(located(job(" {}"))).toEqual([
      expect.stringMatching(/^NO_POD_TEMPLATE spec\.pytorchReplicaSpecs: PyTorchJob\/train has no replica specs/),
    ]);
  });

  test("a Worker whose template is a string while Master is fine → the Worker's template is named, Master still linted", () => {
    const text = job(`
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: m, image: x, env: [{name: NCCL_IB_DISABLE, value: '1'}]}]
    Worker:
      replicas: 1
      template: oops`);
    const codes = located(text);
    expect(codes).toContainEqual(
      expect.stringMatching(
        /^NO_POD_TEMPLATE spec\.pytorchReplicaSpecs\.Worker\.template: .*no pod template for Worker/,
      ),
    );
    expect(codes.some((c) => c.startsWith("NCCL_IB_DISABLED"))).toBe(true);
  });

  test("a Pod with containers: null → NO_POD_TEMPLATE at spec.containers, exit 1", async () => {
    const io = captureIo("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: null\n");
    expect(await main(["lint", "-"], io)).toBe(1);
    expect(io.out).toMatch(/ERROR {3}NO_POD_TEMPLATE <stdin>:\d+ \(document 1, Pod\/p\)/);
    expect(io.out).toContain("field: spec.containers");
  });

  test("a Volcano Job without tasks → NO_POD_TEMPLATE at spec.tasks", () => {
    const text =
      "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj}\nspec:\n  schedulerName: volcano\n";
    expect(located(text)).toEqual([expect.stringMatching(/^NO_POD_TEMPLATE spec\.tasks: Job\/vj has no tasks/)]);
  });
});

describe("lint: a replica count that is not a whole number is named, never counted as '-2 GPU pods'", () => {
  const job = (replicas: string) =>
    `apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: train}\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: ${replicas}\n      template:\n        spec:\n          containers: [{name: w, image: x}]\n`;

  test("replicas: -3 and replicas: two → BAD_REPLICAS at the field with the value, counted as 1", () => {
    for (const [value, printed] of [
      ["-3", "-3"],
      ["two", '"two"'],
    ] as const) {
      const f = lintManifestText(job(value), "j.yaml").findings.find((x) => x.code === "BAD_REPLICAS");
      expect(f?.field).toBe("spec.pytorchReplicaSpecs.Worker.replicas");
      expect(f?.message).toContain(
        `to ${printed}: expected a whole number ≥ 0 of pods; the other checks counted it as 1`,
      );
      expect(f?.line).toBe(7);
    }
  });

  test("replicas: 2 → no BAD_REPLICAS", () => {
    expect(lintManifestText(job("2"), "j.yaml").findings.map((f) => f.code)).not.toContain("BAD_REPLICAS");
  });
});
