/**
 * `job … --preflight` (the default): every generated job kind gets the gang preflight init container in each GPU
 * pod, waiting for exactly the job's GPU pods, with the training container's image, env, devices and IPC_LOCK and
 * nothing more; the ServiceAccount, Role, RoleBinding and ConfigMap go beside it. All of it lints clean and
 * matches the published CRDs and the core models.
 */
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { captureIo } from "../../../test/support/io.js";
import { validateCoreObject, validateCustomResource } from "../../../test/support/kube/schemas.js";
import { main } from "../../cli/main.js";
import { KUBE_RDMA_IMAGE } from "../image.js";
import { lintManifestText } from "../lint/index.js";
import { isPreflightSupportObject } from "../lint/preflight.js";
import { workloadOf } from "../lint/templates.js";
import { preflightUser, withPreflight } from "./preflight.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function generate(...args: string[]) {
  const io = captureIo();
  const code = await main(["job", ...args], io);
  const all = parseAllDocuments(io.out).map((d) => d.toJS() as Any);
  return { code, yaml: io.out, all, err: io.err };
}

const templatesOf = (o: Any) =>
  workloadOf(o)!.templates.map((t) => ({ replicas: t.replicas, metadata: t.meta as Any, spec: t.spec as Any }));

const NCCL_TESTS_11_4 = "registry.example.com/nccl-tests:2.13.8-cuda11.4";

const KINDS: [string, string[], number][] = [
  ["pytorch", ["pytorch", "--nodes", "4"], 4],
  ["mpi", ["mpi", "--nodes", "3", "--", "python", "train.py"], 3],
  ["volcano", ["volcano", "--nodes", "2", "--", "python", "train.py"], 2],
  // The example node's driver 470 runs CUDA ≤ 11.4: no published nccl-tests image fits, so the job names its own.
  ["nccl-tests (MPIJob)", ["nccl-tests", "--nodes", "16", "--image", NCCL_TESTS_11_4], 16],
  ["nccl-tests (Volcano)", ["nccl-tests", "--nodes", "5", "--kind", "volcano", "--image", NCCL_TESTS_11_4], 5],
];

describe("job --preflight on every job kind", () => {
  test.each(KINDS)(
    "%s: init container in each GPU pod, --members = GPU pods, valid and lint-clean",
    async (_k, args, gpuPods) => {
      const [kind, ...rest] = args;
      const { code, yaml, all } = await generate(kind!, "--example", "training-pod", "--name", "llama", ...rest);
      expect(code).toBe(0);
      const support = all.filter(isPreflightSupportObject);
      expect(support.map((o) => o.kind)).toEqual(["ServiceAccount", "Role", "RoleBinding", "ConfigMap"]);
      for (const o of support) expect(validateCoreObject(o)).toEqual([]);
      expect(support.find((o) => o.kind === "Role").rules).toEqual([
        {
          apiGroups: [""],
          resources: ["configmaps"],
          resourceNames: ["llama-preflight"],
          verbs: ["get", "patch", "list", "watch"],
        },
      ]);
      const jobs = all.filter((o) => !isPreflightSupportObject(o));
      expect(jobs).toHaveLength(1);
      let withPreflight = 0;
      for (const t of templatesOf(jobs[0])) {
        const main = t.spec.containers[0];
        const gpuPod = main.resources?.limits?.["nvidia.com/gpu"] !== undefined;
        if (!gpuPod) {
          expect(t.spec.initContainers).toBeUndefined();
          continue;
        }
        withPreflight += t.replicas;
        const [init] = t.spec.initContainers;
        expect(init.name).toBe("kube-rdma-preflight");
        expect([...init.command, ...init.args]).toEqual([
          "kube-rdma",
          "preflight",
          "--job",
          "llama",
          "--members",
          String(gpuPods),
          "--timeout",
          "600",
        ]);
        // The training image does not carry kube-rdma: the init container runs the kube-rdma image.
        expect(init.image).toBe(KUBE_RDMA_IMAGE);
        expect(init.image).not.toBe(main.image);
        expect(init.resources).toEqual(main.resources);
        // No privilege beyond the training container's, as the training container's user: root in the NGC
        // images (no USER in their Dockerfiles), where IPC_LOCK is effective; the kube-rdma image's uid 1000 would
        // not have it and would judge memlock as no training container sees it.
        expect(init.securityContext).toEqual({ ...main.securityContext, runAsUser: 0 });
        expect(init.securityContext.privileged).toBeUndefined();
        expect(init.env.slice(0, main.env.length)).toEqual(main.env);
        expect(init.env.slice(main.env.length)).toEqual([
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
        ]);
        expect(t.spec.serviceAccountName).toBe("llama-preflight");
        const template: Any = { metadata: t.metadata, spec: t.spec };
        expect(validateCoreObject(template, "V1PodTemplateSpec")).toEqual([]);
      }
      expect(withPreflight).toBe(gpuPods);
      const lint = lintManifestText(yaml, "generated.yaml");
      expect(lint.problems).toEqual([]);
      expect(lint.findings.map((f) => `${f.code} ${f.field}`)).toEqual([]);
      expect(validateCustomResource(jobs[0])).toEqual([]);
    },
  );

  test("--no-preflight leaves the job as it was: one object, no init container", async () => {
    const { all } = await generate("pytorch", "--nodes", "2", "--no-preflight");
    expect(all.map((o) => o.kind)).toEqual(["PyTorchJob"]);
    for (const t of templatesOf(all[0])) expect(t.spec.initContainers).toBeUndefined();
  });

  test("--preflight-image and --preflight-timeout reach the init container; a bad timeout is exit 2", async () => {
    const { all } = await generate("pytorch", "--preflight-image", "kube-rdma:0.1.0", "--preflight-timeout", "90");
    const init = templatesOf(all.find((o) => o.kind === "PyTorchJob"))[0]!.spec.initContainers[0];
    expect(init.image).toBe("kube-rdma:0.1.0");
    expect(init.args.slice(-2)).toEqual(["--timeout", "90"]);
    expect((await generate("pytorch", "--preflight-timeout", "0")).code).toBe(2);
  });
});

describe("lint knows the preflight", () => {
  async function pytorch(edit: (job: Any) => void) {
    const { all } = await generate("pytorch", "--nodes", "4", "--name", "llama");
    edit(all.find((o) => o.kind === "PyTorchJob"));
    const yaml = all.map((o) => JSON.stringify(o)).join("\n---\n");
    return lintManifestText(yaml, "edited.yaml").findings.map((f) => `${f.severity} ${f.code} ${f.field}`);
  }

  test("a job scaled to 6 workers whose preflight still waits for 4 is an error at the init container's args", async () => {
    const findings = await pytorch((j) => {
      j.spec.pytorchReplicaSpecs.Worker.replicas = 6;
    });
    expect(findings).toEqual([
      "error PREFLIGHT_MEMBERS_MISMATCH spec.pytorchReplicaSpecs.Master.template.spec.initContainers[0].args",
      "error PREFLIGHT_MEMBERS_MISMATCH spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].args",
    ]);
  });

  test("a preflight without the job's service account or with other devices than training is a warning", async () => {
    const findings = await pytorch((j) => {
      const spec = j.spec.pytorchReplicaSpecs.Worker.template.spec;
      delete spec.serviceAccountName;
      spec.initContainers[0].resources = { limits: { "rdma/hca": "1" } };
    });
    expect(findings).toEqual([
      "warning PREFLIGHT_DEVICES_DIFFER spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].resources",
      "warning PREFLIGHT_NO_SERVICE_ACCOUNT spec.pytorchReplicaSpecs.Worker.template.spec",
    ]);
  });

  test("a ConfigMap that is not the preflight's is still an unknown kind (info)", () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {}\n";
    expect(lintManifestText(yaml, "cm.yaml").findings.map((f) => f.code)).toEqual(["UNKNOWN_KIND"]);
  });
});

describe("deploy/preflight/rbac.yaml", () => {
  test("is the generated support objects for a job named my-job: valid core objects, the same narrow Role", async () => {
    const { readFileSync } = await import("node:fs");
    const shipped = parseAllDocuments(readFileSync("deploy/preflight/rbac.yaml", "utf8")).map((d) => d.toJS() as Any);
    for (const o of shipped) expect(validateCoreObject(o), `${o.kind}/${o.metadata.name}`).toEqual([]);
    const { all } = await generate("pytorch", "--name", "my-job");
    expect(shipped).toEqual(all.filter(isPreflightSupportObject));
  });
});

describe("withPreflight on Kubeflow Trainer runtimes", () => {
  const trainer = async (...args: string[]) =>
    (await generate("trainjob", "--no-preflight", "--name", "llama", "--nodes", "3", ...args)).all;

  test("a shared ClusterTrainingRuntime is left as it is, with a note; the TrainJob draws no note", async () => {
    const objects = await trainer();
    const r = withPreflight(objects, { timeoutSeconds: 60 });
    expect(r.objects).toEqual(objects);
    expect(r.notes).toEqual([
      "preflight: ClusterTrainingRuntime/llama-torch-rdma is shared by every TrainJob that names it; no job's preflight goes into it",
    ]);
  });

  test("a TrainingRuntime takes the preflight of the one TrainJob that refers to it: its name, its numNodes", async () => {
    const [runtime, tj] = await trainer();
    runtime.kind = "TrainingRuntime";
    runtime.metadata.namespace = "default";
    tj.spec.runtimeRef.kind = "TrainingRuntime";
    tj.spec.trainer.numNodes = 5;
    const r = withPreflight([runtime, tj], { timeoutSeconds: 60 });
    const out = r.objects.find((o) => o.kind === "TrainingRuntime") as Any;
    const init = out.spec.template.spec.replicatedJobs[0].template.spec.template.spec.initContainers[0];
    expect(init.args).toEqual(["--job", "llama", "--members", "5", "--timeout", "60"]);
    expect(r.objects.filter(isPreflightSupportObject).map((o) => o.metadata?.name)).toEqual(
      Array(4).fill("llama-preflight"),
    );
  });

  test("a TrainingRuntime two TrainJobs refer to gets no init container (whose gang would it be?)", async () => {
    const [runtime, tj] = await trainer();
    runtime.kind = "TrainingRuntime";
    tj.spec.runtimeRef.kind = "TrainingRuntime";
    const other = { ...structuredClone(tj), metadata: { name: "mistral", namespace: "default" } };
    const r = withPreflight([runtime, tj, other], { timeoutSeconds: 60 });
    expect(r.objects).toEqual([runtime, tj, other]);
    expect(r.notes).toEqual([
      "preflight: TrainingRuntime/llama-torch-rdma is used by 2 TrainJobs here, not exactly one; no init container added",
    ]);
  });
});

describe("the preflight init container runs as the training container's user", () => {
  const training = {
    name: "train",
    image: "nvcr.io/nvidia/pytorch:24.05-py3",
    securityContext: { capabilities: { add: ["IPC_LOCK"] } },
  };
  test("the image's default user (root in NGC images) when neither the container nor the pod names one", () => {
    expect(preflightUser(training, {})).toEqual({ runAsUser: 0 });
  });
  test("the container's or the pod's runAsUser when given; nothing forced under runAsNonRoot", () => {
    expect(
      preflightUser({ ...training, securityContext: { ...training.securityContext, runAsUser: 1234 } }, {}),
    ).toEqual({
      runAsUser: 1234,
    });
    expect(preflightUser(training, { securityContext: { runAsUser: 4321 } })).toEqual({ runAsUser: 4321 });
    expect(preflightUser(training, { securityContext: { runAsNonRoot: true } })).toEqual({});
  });
});
