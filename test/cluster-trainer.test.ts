/** `cluster` sees Kubeflow Trainer v2 (TrainJob CRDs + controller) beside the v1 training operator. */
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";
import { seedCluster } from "./support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, startFakeApi } from "./support/kube/fake-api.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function cluster(objects: Record<string, Obj[]>, output = "json") {
  api = await startFakeApi(objects);
  const io = captureIo();
  const code = await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", output], io);
  return { code, out: io.out, err: io.err };
}

describe("cluster: Kubeflow Trainer v2 beside the v1 training operator", () => {
  test("Trainer v2 installed: its controller is listed as trainer-controller, its 3 CRDs as present, and the cluster passes", async () => {
    const { code, out } = await cluster(seedCluster({ trainerV2: "installed" }));
    const report = JSON.parse(out);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    const text = await cluster(seedCluster({ trainerV2: "installed" }), "text");
    expect(text.out).toMatch(/trainer-controller\s+kubeflow-system\/kubeflow-trainer-controller-manager\s+1\/1 ready/);
    expect(text.out).toMatch(/training-operator\s+kubeflow\/training-operator\s+1\/1 ready/);
    expect(text.out).toMatch(/✓ trainjobs\.trainer\.kubeflow\.org \(v1alpha1\)/);
    expect(text.out).toMatch(/✓ clustertrainingruntimes\.trainer\.kubeflow\.org/);
  });

  test("the TrainJob CRDs without the Trainer controller → TRAINER_CONTROLLER_MISSING, an error naming the Deployment", async () => {
    const { code, out } = await cluster(seedCluster({ trainerV2: "crds-only" }));
    const report = JSON.parse(out);
    expect(report.findings.map((f: { code: string; severity: string }) => `${f.severity} ${f.code}`)).toEqual([
      "error TRAINER_CONTROLLER_MISSING",
    ]);
    expect(report.findings[0].message).toMatch(/kubeflow-trainer-controller-manager/);
    expect(code).toBe(1);
  });

  test("a cluster with only the v1 operator is not asked for Trainer v2; its CRDs show as missing in the list", async () => {
    const { code, out } = await cluster(seedCluster(), "text");
    expect(code).toBe(0);
    expect(out).toMatch(/✗ trainjobs\.trainer\.kubeflow\.org missing/);
    expect(out).not.toMatch(/TRAINER_/);
  });

  test("Trainer v2 half installed (TrainJob CRD without the runtimes) → TRAINER_CRD_MISSING naming them", async () => {
    const objects = seedCluster({ trainerV2: "installed" });
    objects.customresourcedefinitions = objects.customresourcedefinitions!.filter(
      (c) => !/trainingruntimes/.test(String((c.metadata as { name: string }).name)),
    );
    const report = JSON.parse((await cluster(objects)).out);
    const f = report.findings.find((x: { code: string }) => x.code === "TRAINER_CRD_MISSING");
    expect(f.message).toMatch(
      /clustertrainingruntimes\.trainer\.kubeflow\.org, trainingruntimes\.trainer\.kubeflow\.org missing/,
    );
  });
});
