import { afterEach, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { captureIo } from "../../../test/support/io.js";
import { node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { crdSchema, validateCoreObject, validateCustomResource } from "../../../test/support/kube/schemas.js";
import { main } from "../../cli/main.js";
import { collectSnapshot, openReader } from "../../host/index.js";
import { lintManifestText } from "../lint/index.js";
import { isPreflightSupportObject } from "../lint/preflight.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

/** `docs` are the jobs; `support` the preflight's ServiceAccount, Role, RoleBinding and ConfigMap beside them. */
async function job(...args: string[]) {
  const io = captureIo();
  const code = await main(["job", ...args], io);
  const all = io.out ? parseAllDocuments(io.out).map((d) => d.toJS() as Any) : [];
  const docs = all.filter((d) => !isPreflightSupportObject(d));
  const support = all.filter((d) => isPreflightSupportObject(d));
  return { code, io, docs, support, yaml: io.out };
}

function podTemplates(o: Any): Any[] {
  if (o.kind === "PyTorchJob") return Object.values(o.spec.pytorchReplicaSpecs).map((r: Any) => r.template);
  if (o.kind === "MPIJob") return Object.values(o.spec.mpiReplicaSpecs).map((r: Any) => r.template);
  return o.spec.tasks.map((t: Any) => t.template);
}

/** Generated YAML must lint clean (no errors or warnings) and match the published CRD and core models. */
function expectValid(yaml: string, docs: Any[]) {
  const lint = lintManifestText(yaml, "generated.yaml");
  expect(lint.problems).toEqual([]);
  expect(lint.findings.map((f) => `${f.code} ${f.field}`)).toEqual([]);
  for (const d of docs) {
    for (const t of podTemplates(d)) expect(validateCoreObject(t, "V1PodTemplateSpec")).toEqual([]);
    expect(validateCustomResource(d)).toEqual([]);
  }
}

describe("job pytorch: the guide's PyTorchJob", () => {
  test("--nodes 2 --gpus 8: Master + Worker, Volcano, IPC_LOCK, rdma/hca 1, memory /dev/shm, no sidecar, NCCL env", async () => {
    const { code, docs, yaml } = await job(
      "pytorch",
      "--nodes",
      "2",
      "--gpus",
      "8",
      "--",
      "main.py",
      "--batch-size",
      "128",
    );
    expect(code).toBe(0);
    expect(docs).toHaveLength(1);
    const pj = docs[0];
    expect(pj).toMatchObject({ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" });
    expect(pj.spec.pytorchReplicaSpecs.Master.replicas).toBe(1);
    expect(pj.spec.pytorchReplicaSpecs.Worker.replicas).toBe(1);
    for (const t of podTemplates(pj)) {
      expect(t.metadata.annotations["sidecar.istio.io/inject"]).toBe("false");
      expect(t.spec.schedulerName).toBe("volcano");
      const c = t.spec.containers[0];
      expect(c.name).toBe("pytorch");
      expect(c.securityContext.capabilities.add).toEqual(["IPC_LOCK"]);
      expect(c.resources.limits).toEqual({ "nvidia.com/gpu": "8", "rdma/hca": "1" });
      expect(c.env).toEqual(
        expect.arrayContaining([
          { name: "NCCL_DEBUG", value: "INFO" },
          { name: "NCCL_IB_DISABLE", value: "0" },
        ]),
      );
      const shm = c.volumeMounts.find((m: Any) => m.mountPath === "/dev/shm");
      expect(t.spec.volumes.find((v: Any) => v.name === shm.name).emptyDir).toEqual({
        medium: "Memory",
        sizeLimit: "32Gi",
      });
      // No shell: torchrun is PID 1 and its flags come from the operator's env through $(VAR) expansion.
      expect(c.command).toEqual(["torchrun"]);
      expect(c.args).toEqual([
        "--nproc_per_node=8",
        "--nnodes=$(WORLD_SIZE)",
        "--node_rank=$(RANK)",
        "--master_addr=$(MASTER_ADDR)",
        "--master_port=$(MASTER_PORT)",
        "main.py",
        "--batch-size",
        "128",
      ]);
    }
    expectValid(yaml, docs);
  });

  test("--launcher launch keeps the guide's torch.distributed.launch flags, without sh -c", async () => {
    const { docs } = await job("pytorch", "--launcher", "launch", "--command", "main.py --cfg 'configs/a b.yaml'");
    const c = docs[0].spec.pytorchReplicaSpecs.Master.template.spec.containers[0];
    expect([...c.command, ...c.args].join(" ")).toBe(
      "python -m torch.distributed.launch --nproc_per_node 8 --nnodes $(WORLD_SIZE) --node_rank $(RANK) --master_addr $(MASTER_ADDR) --master_port $(MASTER_PORT) main.py --cfg configs/a b.yaml",
    );
  });

  test("vendor GPU names, queue, --host-network (ClusterFirstWithHostNet) and shm size are honoured", async () => {
    const { docs, yaml } = await job(
      "pytorch",
      "--nodes",
      "4",
      "--gpu-resource",
      "baidu.com/a100_80g_cgpu",
      "--queue",
      "training",
      "--host-network",
      "--shm-size",
      "10Gi",
      "--env",
      "NCCL_IB_TIMEOUT=22",
    );
    const pj = docs[0];
    expect(pj.spec.pytorchReplicaSpecs.Worker.replicas).toBe(3);
    expect(pj.spec.runPolicy.schedulingPolicy).toEqual({ minAvailable: 4, queue: "training" });
    const t = pj.spec.pytorchReplicaSpecs.Worker.template;
    expect(t.metadata.annotations["scheduling.volcano.sh/queue-name"]).toBe("training");
    expect(t.spec).toMatchObject({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" });
    expect(t.spec.containers[0].resources.limits["baidu.com/a100_80g_cgpu"]).toBe("8");
    expect(t.spec.containers[0].env).toContainEqual({ name: "NCCL_IB_TIMEOUT", value: "22" });
    expect(t.spec.volumes[0].emptyDir.sizeLimit).toBe("10Gi");
    expectValid(yaml, docs);
  });
});

describe("job with the NCCL variables derived for a node", () => {
  test("--example a100-8x-roce --host-network: the job with NCCL_IB_HCA/SOCKET_IFNAME/GID_INDEX derived, reasons as comments", async () => {
    const { code, docs, yaml } = await job(
      "pytorch",
      "--nodes",
      "2",
      "--gpus",
      "8",
      "--example",
      "a100-8x-roce",
      "--host-network",
    );
    expect(code).toBe(0);
    const env = Object.fromEntries(
      docs[0].spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].env.map((e: Any) => [e.name, e.value]),
    );
    expect(env).toMatchObject({
      NCCL_DEBUG: "INFO",
      NCCL_IB_DISABLE: "0",
      NCCL_IB_HCA: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
      NCCL_SOCKET_IFNAME: "=eth0",
      NCCL_IB_GID_INDEX: "3",
    });
    expect(yaml).toMatch(/^# NCCL variables derived from example a100-8x-roce$/m);
    expect(yaml).toMatch(/^# NCCL_IB_HCA==mlx5_1,.*: the 8 data HCAs/m);
    expectValid(yaml, docs);
  });

  test("nccl-tests --nodes 4 --example: the launcher forwards every derived variable with -x", async () => {
    const { docs, yaml } = await job(
      "nccl-tests",
      "--nodes",
      "4",
      "--example",
      "a100-8x-roce",
      "--host-network",
      "--image",
      "registry.example/nccl-tests:11.4.3-devel-ubuntu20.04",
    );
    const l = docs[0].spec.mpiReplicaSpecs.Launcher.template.spec.containers[0];
    for (const k of ["NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX"]) {
      expect(l.args.join(" ")).toContain(`-x ${k}`);
      expect(l.env.map((e: Any) => e.name)).toContain(k);
    }
    expectValid(yaml, docs);
  });

  test("--env-from-node reads that node through a collector pod and deletes it", async () => {
    const snapshot = await openReader({ example: "gid-index-5" }).then(collectSnapshot);
    api = await startFakeApi(seedCluster(), {
      onPodCreated: (pod) =>
        pod.spec.nodeName === "gpu-a100-2" ? { phase: "Succeeded", log: JSON.stringify(snapshot) } : undefined,
    });
    const { code, docs, yaml, io } = await job(
      "pytorch",
      "--env-from-node",
      "gpu-a100-2",
      "--kubeconfig",
      api.kubeconfig,
      "--poll-interval",
      "5",
    );
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(yaml).toMatch(/derived from node gpu-a100-2 \(collector pod\)/);
    const env = docs[0].spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env.map((e: Any) => e.name);
    expect(env).toContain("NCCL_IB_HCA");
    expect(api.store.get("pods")!.filter((p) => p.metadata.namespace === "kube-rdma")).toEqual([]);
  });

  test("--env-from-node takes the RDMA resource that node advertises (NVIDIA Network Operator: rdma/rdma_shared_device_a) unless --rdma-resource", async () => {
    const snapshot = await openReader({ example: "a100-8x-roce" }).then(collectSnapshot);
    const nodes = ["gpu-a100-1", "gpu-a100-2"].map((name) =>
      node({ name, gpus: 8, rdma: "63", rdmaResource: "rdma/rdma_shared_device_a" }),
    );
    api = await startFakeApi(seedCluster({ nodes }), {
      onPodCreated: () => ({ phase: "Succeeded", log: JSON.stringify(snapshot) }),
    });
    const limits = (docs: Any[]) =>
      docs[0].spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits as Record<string, string>;
    const args = ["--env-from-node", "gpu-a100-2", "--kubeconfig", api.kubeconfig, "--poll-interval", "5"];
    const derived = await job("pytorch", ...args);
    expect(derived.code, derived.io.err).toBe(0);
    expect(Object.keys(limits(derived.docs))).toContain("rdma/rdma_shared_device_a");
    expect(Object.keys(limits(derived.docs))).not.toContain("rdma/hca");
    const given = await job("pytorch", ...args, "--rdma-resource", "rdma/hca");
    expect(Object.keys(limits(given.docs))).toContain("rdma/hca");
  });

  test("--example and --snapshot together are a usage error", async () => {
    const r = await job("pytorch", "--example", "a100-8x-roce", "--snapshot", "x.json");
    expect(r.code).toBe(2);
    expect(r.io.err).toMatch(/give one node source/);
  });
});

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("job nccl-tests / mpi / volcano", () => {
  test("nccl-tests --nodes 4: MPIJob v2beta1, 4 workers × 8 slots, WaitForWorkersReady, mpirun -np 32 with -x NCCL_*", async () => {
    const { code, docs, yaml } = await job("nccl-tests", "--nodes", "4");
    expect(code).toBe(0);
    const mj = docs[0];
    expect(mj).toMatchObject({
      apiVersion: "kubeflow.org/v2beta1",
      kind: "MPIJob",
      spec: { slotsPerWorker: 8, launcherCreationPolicy: "WaitForWorkersReady" },
    });
    expect(mj.spec.mpiReplicaSpecs.Worker.replicas).toBe(4);
    const launcher = mj.spec.mpiReplicaSpecs.Launcher.template.spec.containers[0];
    const argv = [...launcher.command, ...launcher.args];
    expect(argv[0]).toBe("mpirun");
    expect(argv.slice(argv.indexOf("-np"), argv.indexOf("-np") + 2)).toEqual(["-np", "32"]);
    expect(argv.join(" ")).toMatch(
      /^mpirun -x NCCL_IB_DISABLE .* -x NCCL_DEBUG=INFO .*all_reduce_perf -b 8 -e 8G -f 2 -g 1$/,
    );
    expect(launcher.resources).toBeUndefined();
    expect(launcher.env).toContainEqual({ name: "OMPI_ALLOW_RUN_AS_ROOT", value: "1" });
    const worker = mj.spec.mpiReplicaSpecs.Worker.template.spec.containers[0];
    expect(worker.resources.limits).toEqual({ "nvidia.com/gpu": "8", "rdma/hca": "1" });
    expectValid(yaml, docs);
  });

  test("nccl-tests --kind volcano: Volcano Job with ssh/svc plugins, minAvailable = all pods, mpimaster/mpiworker", async () => {
    const { docs, yaml } = await job("nccl-tests", "--nodes", "2", "--kind", "volcano");
    const vj = docs[0];
    expect(vj).toMatchObject({
      apiVersion: "batch.volcano.sh/v1alpha1",
      kind: "Job",
      spec: { minAvailable: 3, schedulerName: "volcano", plugins: { ssh: [], svc: [] } },
    });
    expect(vj.spec.tasks.map((t: Any) => `${t.name}×${t.replicas}`)).toEqual(["mpimaster×1", "mpiworker×2"]);
    expect(vj.spec.tasks[0].policies).toEqual([{ event: "TaskCompleted", action: "CompleteJob" }]);
    expect(vj.spec.tasks[0].template.spec.containers[0].command[2]).toMatch(
      /MPI_HOST=\$\(cat \/etc\/volcano\/mpiworker\.host.*mpirun --host \$\{MPI_HOST\} .*-x NCCL_DEBUG/,
    );
    expectValid(yaml, docs);
  });

  test("mpi and volcano run the given program under mpirun", async () => {
    for (const kind of ["mpi", "volcano"]) {
      const { code, docs, yaml } = await job(kind, "--nodes", "2", "--image", "my/train:1", "--", "python", "train.py");
      expect(code).toBe(0);
      expect(yaml).toMatch(/python train\.py|- python\n\s+- train\.py/);
      expectValid(yaml, docs);
    }
  });

  test("-o json prints a v1 List for kubectl", async () => {
    const io = captureIo();
    expect(await main(["job", "nccl-tests", "-o", "json"], io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ apiVersion: "v1", kind: "List" });
    expect(JSON.parse(io.out).items.map((i: Any) => i.kind)).toEqual([
      "ServiceAccount",
      "Role",
      "RoleBinding",
      "ConfigMap",
      "MPIJob",
    ]);
  });
});

describe("job: bad usage and --apply", () => {
  test("an unknown kind, a missing mpi program and --nodes 0 are usage errors", async () => {
    expect((await job("tfjob")).code).toBe(2);
    const mpi = await job("mpi");
    expect(mpi.code).toBe(2);
    expect(mpi.io.err).toMatch(/needs the program mpirun starts/);
    const zero = await job("pytorch", "--nodes", "0");
    expect(zero.io.err).toMatch(/--nodes must be a whole number ≥ 1/);
  });
});

describe("job --on: a pair test placed on its two nodes", () => {
  test("nccl-tests --nodes 2 --on gpu-1,gpu-4 → the GPU workers only on those nodes, never both on one; launcher free", async () => {
    const { code, docs, yaml } = await job("nccl-tests", "--nodes", "2", "--on", "gpu-1,gpu-4", "--name", "pair-1-4");
    expect(code).toBe(0);
    const { Launcher, Worker } = docs[0].spec.mpiReplicaSpecs;
    expect(Worker.template.metadata.labels).toEqual({ "kube-rdma/gpu-pod": "pair-1-4" });
    expect(Worker.template.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["gpu-1", "gpu-4"] }] },
          ],
        },
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { "kube-rdma/gpu-pod": "pair-1-4" } },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    });
    expect(Launcher.template.spec.affinity).toBeUndefined();
    expectValid(yaml, docs);
  });

  test("pytorch --on pins Master and Worker alike", async () => {
    const { docs, yaml } = await job("pytorch", "--nodes", "2", "--on", "gpu-7", "--on", "gpu-8");
    for (const t of podTemplates(docs[0])) {
      expect(
        t.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
          .matchExpressions[0].values,
      ).toEqual(["gpu-7", "gpu-8"]);
    }
    expectValid(yaml, docs);
  });

  test("fewer --on nodes than GPU pods → exit 2 saying each pod needs a node of its own", async () => {
    const { code, io } = await job("nccl-tests", "--nodes", "3", "--on", "gpu-1,gpu-2,gpu-2");
    expect(code).toBe(2);
    expect(io.err).toContain("--on names 2 node(s) for --nodes 3: each GPU pod needs a node of its own.");
  });
});

describe("the schema checks themselves catch broken manifests", () => {
  test("an MPIJob whose slotsPerWorker is a string fails the published MPIJob schema", async () => {
    const { docs } = await job("nccl-tests", "--nodes", "2", "--example", "h100-18hca");
    const broken = structuredClone(docs[0]);
    broken.spec.slotsPerWorker = "eight";
    expect(validateCustomResource(broken).join("\n")).toMatch(/slotsPerWorker/);
  });

  test("a checkout without the shared CRD folder fails the schema check loudly, naming the missing file", () => {
    expect(() => crdSchema("kubeflow.org/v2beta1", "MPIJob", "/nonexistent/shared/crds")).toThrow(
      /published CRD schema for kubeflow\.org\/v2beta1\/MPIJob is missing: expected \/nonexistent\/shared\/crds\/kubeflow\.org_mpijobs\.v2beta1\.yaml/,
    );
  });

  test("a pod template with a misspelt field and a string where a list belongs is rejected", () => {
    const bad = {
      kind: "PodTemplateSpec",
      spec: { containers: [{ name: "c", image: "i", comand: ["x"], args: "not-a-list" }] },
    };
    const errors = validateCoreObject(bad, "V1PodTemplateSpec").join("\n");
    expect(errors).toMatch(/comand/);
    expect(errors).toMatch(/args/);
  });
});

describe("job names Kubernetes would refuse are refused before any YAML is written", () => {
  test("--name UPPER_case → exit 2 saying what a job name may hold, and no manifest on stdout", async () => {
    const r = await job("pytorch", "--name", "UPPER_case");
    expect(r.code).toBe(2);
    expect(r.io.out).toBe("");
    expect(r.io.err).toMatch(/--name "UPPER_case" cannot name a job: expected lowercase letters, digits and '-'/);
  });

  test("a 60-character name leaves no room for -worker-<i> within 63 → refused, with the limit for these nodes", async () => {
    const r = await job("mpi", "--name", "a".repeat(60), "--", "python", "train.py");
    expect(r.code).toBe(2);
    expect(r.io.err).toMatch(/at most 51 characters/);
  });

  test("--namespace Bad_NS → exit 2; a valid name and namespace still generate", async () => {
    expect((await job("pytorch", "--namespace", "Bad_NS")).io.err).toMatch(/"Bad_NS" is not a Kubernetes namespace/);
    const ok = await job("pytorch", "--name", "llama-rdma-2node", "--namespace", "team-a");
    expect(ok.code).toBe(0);
    expect(ok.docs[0].metadata).toMatchObject({ name: "llama-rdma-2node", namespace: "team-a" });
  });
});

describe("a job derived from a node with errors says so outside the YAML", () => {
  test("--example no-rocev2-gid → manifest written, error on stderr naming mlx5_5, exit 1", async () => {
    const r = await job("pytorch", "--example", "no-rocev2-gid");
    expect(r.code).toBe(1);
    expect(r.docs[0].kind).toBe("PyTorchJob");
    expect(r.io.err).toMatch(/kube-rdma job: error NCCL_NO_ROCEV2_IPV4_GID: mlx5_5 has no RoCE v2 GID/);
    expect(r.io.err).toMatch(/the manifest was written, but its NCCL variables come from a node with the error/);
  });

  test("the healthy A100 RoCE example node → exit 0 and nothing on stderr", async () => {
    const r = await job("pytorch", "--example", "a100-8x-roce");
    expect(r.code).toBe(0);
    expect(r.io.err).toBe("");
  });
});
