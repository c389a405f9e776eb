/**
 * Jobs for a cluster without Volcano. Volcano stays the default (the reference setup); --scheduler default, kueue or
 * coscheduling write what each needs (see src/kube/job/scheduler.ts for the sources), say what gang scheduling then
 * means, and `job --apply` / `cluster` say when the chosen scheduler is not installed.
 */
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { startFakeApi } from "./support/kube/fake-api.js";
import { validateCustomResource } from "./support/kube/schemas.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function job(...args: string[]) {
  const io = captureIo();
  const dash = args.indexOf("--");
  const [flags, program] = dash < 0 ? [args, []] : [args.slice(0, dash), args.slice(dash)];
  const code = await main(["job", ...flags, "--example", "a100-8x-roce", "--no-preflight", ...program], io);
  const objects = parseAllDocuments(io.out)
    .map((d) => d.toJS() as Any)
    .filter(Boolean);
  return { code, objects, yaml: io.out, err: io.err };
}
const podSpecs = (o: Any): Any[] =>
  Object.values(o.spec.pytorchReplicaSpecs ?? o.spec.mpiReplicaSpecs ?? {}).map((r: Any) => r.template.spec);

describe("job --scheduler", () => {
  test("volcano (default): schedulerName volcano, a PodGroup of every pod via schedulingPolicy", async () => {
    const { objects } = await job("pytorch", "--nodes", "4");
    expect(podSpecs(objects[0]).every((s) => s.schedulerName === "volcano")).toBe(true);
    expect(objects[0].spec.runPolicy.schedulingPolicy).toEqual({ minAvailable: 4 });
  });

  test("default: the default scheduler, no gang, and the job says what that risks; lint warns", async () => {
    const { code, objects, yaml } = await job("pytorch", "--nodes", "4", "--scheduler", "default");
    expect(code).toBe(0);
    expect(podSpecs(objects[0]).every((s) => s.schedulerName === "default-scheduler")).toBe(true);
    expect(objects[0].spec.runPolicy.schedulingPolicy).toBeUndefined();
    expect(yaml).toMatch(/no gang scheduling .* two such jobs can hold each other's GPUs forever/);
    expect(validateCustomResource(objects[0])).toEqual([]);
    expect(lintManifestText(yaml, "j.yaml").findings.map((f) => f.code)).toContain("NOT_GANG_SCHEDULED");
  });

  test("kueue: the queue-name label (from --queue), the default scheduler; lint sees Kueue's admission as a gang", async () => {
    const { objects, yaml } = await job(
      "mpi",
      "--nodes",
      "2",
      "--scheduler",
      "kueue",
      "--queue",
      "team-a",
      "--",
      "python",
      "t.py",
    );
    expect(objects[0].metadata.labels).toEqual({ "kueue.x-k8s.io/queue-name": "team-a" });
    expect(podSpecs(objects[0]).every((s) => s.schedulerName === "default-scheduler")).toBe(true);
    expect(JSON.stringify(objects[0])).not.toMatch(/scheduling\.volcano\.sh/);
    expect(yaml).toMatch(/Kueue admits all 2 pods or none; set waitForPodsReady/);
    expect(validateCustomResource(objects[0])).toEqual([]);
    expect(lintManifestText(yaml, "j.yaml").findings.map((f) => f.code)).not.toContain("NOT_GANG_SCHEDULED");
  });

  test("coscheduling: scheduler-plugins' scheduler, minAvailable for the operator's PodGroup; a TrainJob runtime's podGroupPolicy", async () => {
    const { objects } = await job("pytorch", "--nodes", "2", "--scheduler", "coscheduling");
    expect(podSpecs(objects[0]).every((s) => s.schedulerName === "scheduler-plugins-scheduler")).toBe(true);
    expect(objects[0].spec.runPolicy.schedulingPolicy).toEqual({ minAvailable: 2 });
    const t = await job("trainjob", "--nodes", "2", "--scheduler", "coscheduling");
    const runtime = t.objects.find((o) => o.kind.endsWith("TrainingRuntime"));
    expect(runtime.spec.podGroupPolicy).toEqual({ coscheduling: {} });
    for (const o of t.objects) expect(validateCustomResource(o)).toEqual([]);
  });

  test("a Volcano Job cannot run without Volcano: --scheduler kueue is refused (exit 2) with what to use instead", async () => {
    const r = await job("volcano", "--nodes", "2", "--scheduler", "kueue", "--", "python", "t.py");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Use job pytorch or job mpi/);
  });
});

describe("the chosen scheduler must be installed", () => {
  const cluster = () => {
    const objects = seedCluster({
      nodes: [node({ name: "gpu-01", gpus: 8, rdma: "1k" }), node({ name: "gpu-02", gpus: 8, rdma: "1k" })],
    });
    return startFakeApi(objects);
  };
  test("job --apply --scheduler kueue on a cluster without Kueue: exit 2, nothing created, how to install it", async () => {
    const api = await cluster();
    try {
      const io = captureIo();
      const code = await main(
        [
          "job",
          "pytorch",
          "--nodes",
          "2",
          "--scheduler",
          "kueue",
          "--apply",
          "--kubeconfig",
          api.kubeconfig,
          "--no-preflight",
        ],
        io,
      );
      expect(code).toBe(2);
      expect(io.err).toMatch(/no clusterqueues\.kueue\.x-k8s\.io CRD/);
      expect(io.err).toMatch(/Install Kueue/);
      expect(api.store.get("pytorchjobs")).toEqual([]);
    } finally {
      await api.close();
    }
  });
  test("cluster --scheduler kueue: SCHEDULER_NOT_INSTALLED; --scheduler default: no Volcano finding on a cluster without it", async () => {
    const api = await cluster();
    try {
      const io = captureIo();
      await main(["cluster", "--kubeconfig", api.kubeconfig, "--scheduler", "kueue", "-o", "json"], io);
      expect(JSON.parse(io.out).findings.map((f: Any) => f.code)).toContain("SCHEDULER_NOT_INSTALLED");
    } finally {
      await api.close();
    }
    const objects = seedCluster({ nodes: [node({ name: "gpu-01", gpus: 8, rdma: "1k" })] });
    objects.deployments = (objects.deployments ?? []).filter((d) => !/volcano/.test(d.metadata.name));
    objects.customresourcedefinitions = (objects.customresourcedefinitions ?? []).filter(
      (c) => !/volcano/.test(c.metadata.name),
    );
    const bare = await startFakeApi(objects);
    try {
      const io = captureIo();
      await main(["cluster", "--kubeconfig", bare.kubeconfig, "--scheduler", "default", "-o", "json"], io);
      const codes = JSON.parse(io.out).findings.map((f: Any) => f.code);
      expect(codes.filter((c: string) => c.startsWith("VOLCANO_"))).toEqual([]);
      const withVolcano = captureIo();
      await main(["cluster", "--kubeconfig", bare.kubeconfig, "-o", "json"], withVolcano);
      expect(JSON.parse(withVolcano.out).findings.map((f: Any) => f.code)).toContain("VOLCANO_SCHEDULER_MISSING");
    } finally {
      await bare.close();
    }
  });
});
