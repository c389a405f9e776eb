/** Kubeflow Trainer v2: `job trainjob`, its lint rules, and the resourcesPerNode trap. */
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { isPreflightSupportObject } from "../src/kube/lint/preflight.js";
import { captureIo } from "./support/io.js";
import { expectGeneratedValid, parseDocs } from "./support/kube/generated.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function job(...args: string[]) {
  const io = captureIo();
  const code = await main(["job", "trainjob", ...args], io);
  const all: Any[] = io.out ? parseDocs(io.out) : [];
  return {
    code,
    out: io.out,
    err: io.err,
    all,
    docs: all.filter((d) => !isPreflightSupportObject(d)),
  };
}

/** Every string in an object (names, args, env values …), to look for one job's name in another's objects. */
const strings = (v: unknown): string[] =>
  typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(strings) : [];

describe("job trainjob: a TrainJob on a ClusterTrainingRuntime that carries the RDMA pod template", () => {
  test("--nodes 4 --example a100-8x-roce --no-preflight → shared ClusterTrainingRuntime + TrainJob, valid against the Trainer v2.3.0 CRDs, lint-clean", async () => {
    const r = await job(
      "--nodes",
      "4",
      "--example",
      "a100-8x-roce",
      "--no-preflight",
      "--",
      "main.py",
      "--epochs",
      "3",
    );
    expect(r.code).toBe(0);
    expect(r.all).toHaveLength(2);
    const [runtime, tj] = r.docs;
    expect(runtime).toMatchObject({
      apiVersion: "trainer.kubeflow.org/v1alpha1",
      kind: "ClusterTrainingRuntime",
      metadata: { name: "rdma-trainjob-torch-rdma" },
      spec: { mlPolicy: { numNodes: 4, torch: {} }, podGroupPolicy: { volcano: {} } },
    });
    const rj = runtime.spec.template.spec.replicatedJobs[0];
    expect(rj.template.metadata.labels["trainer.kubeflow.org/trainjob-ancestor-step"]).toBe("trainer");
    const pod = rj.template.spec.template;
    const node = pod.spec.containers[0];
    expect(node.name).toBe("node");
    expect([...node.command, ...node.args]).toEqual(["torchrun", "main.py", "--epochs", "3"]);
    expect(node.resources.limits).toEqual({ "nvidia.com/gpu": "8", "rdma/hca": "1" });
    expect(node.securityContext.capabilities.add).toEqual(["IPC_LOCK"]);
    expect(Object.fromEntries(node.env.map((e: Any) => [e.name, e.value]))).toMatchObject({
      NCCL_IB_HCA: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
      NCCL_IB_GID_INDEX: "3",
    });
    expect(pod.metadata.annotations["sidecar.istio.io/inject"]).toBe("false");
    expect(tj).toMatchObject({
      kind: "TrainJob",
      metadata: { name: "rdma-trainjob", namespace: "default" },
      spec: {
        runtimeRef: {
          apiGroup: "trainer.kubeflow.org",
          kind: "ClusterTrainingRuntime",
          name: "rdma-trainjob-torch-rdma",
        },
        trainer: { numNodes: 4, numProcPerNode: 8 },
      },
    });
    expect(tj.spec.trainer).not.toHaveProperty("resourcesPerNode");
    expect(r.out).toMatch(/^# the TrainJob sets no resourcesPerNode/m);
    expectGeneratedValid(r.out, "trainjob.yaml");
  });

  test("--runtime names the runtime; the TrainJob points at it", async () => {
    const r = await job("--runtime", "torch-roce", "--name", "llama", "--no-preflight");
    expect(r.docs[0].metadata.name).toBe("torch-roce");
    expect(r.docs[1].spec.runtimeRef.name).toBe("torch-roce");
    expectGeneratedValid(r.out);
  });
});

describe("job trainjob with the gang preflight (the default): the job's own TrainingRuntime carries it", () => {
  test("--name llama --nodes 4 → a namespaced TrainingRuntime whose pods wait for 4 members of llama; valid, lint-clean", async () => {
    const r = await job("--name", "llama", "--namespace", "team-a", "--nodes", "4", "--example", "a100-8x-roce");
    expect(r.code).toBe(0);
    expect(r.all.map((d) => d.kind)).toEqual([
      "ServiceAccount",
      "Role",
      "RoleBinding",
      "ConfigMap",
      "TrainingRuntime",
      "TrainJob",
    ]);
    const [runtime, tj] = r.docs;
    expect(runtime.metadata).toMatchObject({ name: "llama-torch-rdma", namespace: "team-a" });
    expect(tj.spec.runtimeRef).toEqual({
      apiGroup: "trainer.kubeflow.org",
      kind: "TrainingRuntime",
      name: "llama-torch-rdma",
    });
    const pod = runtime.spec.template.spec.replicatedJobs[0].template.spec.template.spec;
    const [init] = pod.initContainers;
    // --members equals the number of training pods Trainer starts (the TrainJob's numNodes).
    expect(init.args.slice(0, 4)).toEqual(["--job", "llama", "--members", String(tj.spec.trainer.numNodes)]);
    expect(init.env.find((e: Any) => e.name === "POD_NAME")).toEqual({
      name: "POD_NAME",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    });
    expect(pod.serviceAccountName).toBe("llama-preflight");
    const cm = r.all.find((d) => d.kind === "ConfigMap");
    expect(cm.metadata).toMatchObject({ name: "llama-preflight", namespace: "team-a" });
    expect(r.out).not.toMatch(/has no pod template kube-rdma knows/);
    expect(r.out).toMatch(/runtime is a TrainingRuntime of its own in namespace team-a/);
    expectGeneratedValid(r.out, "trainjob-preflight.yaml");
  });

  test("two TrainJobs generated as llama and mistral share no object that names either one's rendezvous", async () => {
    const a = await job("--name", "llama", "--nodes", "2");
    const b = await job("--name", "mistral", "--nodes", "4");
    const key = (d: Any) => `${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`;
    const keysA = new Set(a.all.map(key));
    // No object of one is also an object of the other (applying both would overwrite it) …
    expect(b.all.map(key).filter((k) => keysA.has(k))).toEqual([]);
    // … none is cluster-scoped …
    expect([...a.all, ...b.all].filter((d) => !d.metadata.namespace).map(key)).toEqual([]);
    // … and none of one job's objects names the other job.
    expect(a.all.flatMap(strings).filter((s) => /mistral/.test(s))).toEqual([]);
    expect(b.all.flatMap(strings).filter((s) => /llama/.test(s))).toEqual([]);
  });

  test("--runtime NAME with the preflight: the note says the TrainingRuntime belongs to this job alone", async () => {
    const r = await job("--name", "llama", "--runtime", "torch-roce");
    expect(r.docs[0]).toMatchObject({ kind: "TrainingRuntime", metadata: { name: "torch-roce" } });
    expect(r.out).toMatch(
      /TrainingRuntime torch-roce carries this job's preflight: give each TrainJob its own --runtime/,
    );
    expectGeneratedValid(r.out);
  });

  test("lint knows the preflight in a TrainingRuntime: a --members that is not numNodes is flagged", async () => {
    const r = await job("--name", "llama", "--nodes", "4");
    const wrong = r.out.replace(/- --members\n(\s+)- "4"/, '- --members\n$1- "3"');
    expect(wrong).not.toBe(r.out);
    const lint = lintManifestText(wrong, "tj.yaml");
    expect(lint.findings.map((f) => `${f.code} ${f.kind}`)).toEqual([expect.stringMatching(/ TrainingRuntime$/)]);
  });
});

describe("lint: Trainer v2's resourcesPerNode trap", () => {
  const withResources = async (resources: string) => {
    const r = await job("--nodes", "2");
    const tj = `${r.out}\n  resourcesPerNode:\n    limits:\n${resources}`.replace(
      /numProcPerNode: 8\n\n {2}resourcesPerNode/,
      "numProcPerNode: 8\n    resourcesPerNode",
    );
    return tj.replace(/\n {4}limits:\n/, "\n      limits:\n");
  };

  test("a TrainJob whose resourcesPerNode lists only GPUs drops the runtime's rdma/hca → error at spec.trainer.resourcesPerNode", async () => {
    const yaml = await withResources('        nvidia.com/gpu: "8"\n');
    const r = lintManifestText(yaml, "tj.yaml");
    expect(r.problems).toEqual([]);
    expect(r.findings.map((f) => `${f.severity} ${f.code} ${f.name} ${f.field}`)).toEqual([
      "error TRAINJOB_RESOURCES_DROPPED rdma-trainjob spec.trainer.resourcesPerNode",
    ]);
    expect(r.findings[0]!.message).toMatch(/so rdma\/hca that the runtime requests is dropped/);
  });

  test("listing rdma/hca but not the GPUs drops the GPUs; listing both is fine", async () => {
    const onlyRdma = lintManifestText(await withResources('        rdma/hca: "1"\n'), "tj.yaml");
    expect(onlyRdma.findings[0]?.message).toMatch(/nvidia\.com\/gpu that the runtime requests is dropped/);
    const both = lintManifestText(
      await withResources('        nvidia.com/gpu: "8"\n        rdma/hca: "1"\n'),
      "tj.yaml",
    );
    expect(both.findings).toEqual([]);
  });

  test("a TrainJob alone (runtime not in the file) asking GPUs without an RDMA resource on 2 nodes is flagged too", () => {
    const yaml = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    resourcesPerNode:
      limits: {nvidia.com/gpu: 8}
`;
    const r = lintManifestText(yaml, "t.yaml");
    expect(r.findings.map((f) => f.code)).toEqual(["TRAINJOB_RESOURCES_DROPPED", "TRAINJOB_RUNTIME_NOT_IN_INPUT"]);
    expect(r.findings[0]!.message).toMatch(/referenced runtime ClusterTrainingRuntime\/torch-distributed/);
  });

  test("a TrainJob alone, its runtime not in the input: a warning that the runtime's pod template (RDMA, IPC_LOCK, /dev/shm) was not checked, not a PASS over 1 object", async () => {
    const r = await job("--nodes", "2", "--no-preflight");
    const trainJobOnly = r.out.slice(r.out.lastIndexOf("---\n") + 4);
    expect(trainJobOnly).toMatch(/^apiVersion: trainer\.kubeflow\.org\/v1alpha1\nkind: TrainJob/);
    const lint = lintManifestText(trainJobOnly, "job.yaml");
    expect(lint.findings.map((f) => `${f.severity} ${f.code} ${f.field}`)).toEqual([
      "warning TRAINJOB_RUNTIME_NOT_IN_INPUT spec.runtimeRef",
    ]);
    expect(lint.findings[0]!.message).toContain("was not checked");
    expect(lint.findings[0]!.fix).toContain("kubectl get clustertrainingruntime rdma-trainjob-torch-rdma -o yaml");
    // With the runtime beside it, as generated, nothing to say.
    expect(lintManifestText(r.out, "job.yaml").findings).toEqual([]);
  });

  test("a runtime's node pod template is linted like any pod: no IPC_LOCK is found there", async () => {
    const r = await job("--nodes", "2");
    const broken = r.out.replace(/\n\s+securityContext:\n\s+capabilities:\n\s+add:\n\s+- IPC_LOCK/, "");
    expect(broken).not.toBe(r.out);
    const lint = lintManifestText(broken, "rt.yaml");
    expect(lint.findings.map((f) => `${f.code} ${f.kind} ${f.container}`)).toEqual([
      "NO_IPC_LOCK TrainingRuntime node",
    ]);
  });
});
