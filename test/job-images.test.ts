import { readFileSync } from "node:fs";
/**
 * Every container kube-rdma writes runs a program its image carries. A container that runs `kube-rdma` in a
 * training image (which does not carry it) never starts — the pod waits in StartError while `job` said exit 0 —
 * so every manifest of every kind, with every option that adds a container, is checked here; and `lint` catches
 * the same mistake in a hand-written manifest.
 */
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { agentObjects } from "../src/agent/manifests.js";
import { main } from "../src/cli/main.js";
import { deviceDaemonSetObjects } from "../src/device-plugin/manifests.js";
import { collectorPod } from "../src/kube/fleet/collector.js";
import { imageCarries, PYTORCH_MPI_DOCKERFILE, PYTORCH_MPI_REPOSITORY } from "../src/kube/image-contents.js";
import { carriesKubeRdma, programOf } from "../src/kube/lint/image-programs.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { workloadOf } from "../src/kube/lint/templates.js";
import { captureIo } from "./support/io.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

/** Every container and init container of every pod template (or pod, DaemonSet) in the objects. */
function containers(objects: Any[]): { where: string; c: Any }[] {
  const out: { where: string; c: Any }[] = [];
  for (const o of objects) {
    const specs: Any[] = [];
    const w = workloadOf(o);
    if (w) specs.push(...w.templates.map((t) => t.spec));
    else if (o.kind === "Pod") specs.push(o.spec);
    else if (o.spec?.template?.spec) specs.push(o.spec.template.spec);
    for (const spec of specs) {
      for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
        out.push({ where: `${o.kind}/${o.metadata?.name} ${c.name}`, c });
      }
    }
  }
  return out;
}

/** The containers that run kube-rdma in an image that does not carry it. */
const misplaced = (objects: Any[]) =>
  containers(objects)
    .filter(({ c }) => programOf(c)?.program === "kube-rdma" && !carriesKubeRdma(String(c.image ?? "")))
    .map(({ where, c }) => `${where}: ${c.image}`);

async function generate(args: string[]): Promise<Any[]> {
  const io = captureIo();
  const code = await main(["job", ...args], io);
  expect(code, io.err).toBe(0);
  return parseAllDocuments(io.out)
    .map((d) => d.toJS() as Any)
    .filter(Boolean);
}

const IMAGE = "registry.example.com/nccl-tests:2.13.8-cuda11.4";
const JOBS: string[][] = [
  ["pytorch", "--nodes", "4"],
  ["pytorch", "--nodes", "2", "--no-preflight"],
  ["mpi", "--nodes", "3", "--", "python", "train.py"],
  ["volcano", "--nodes", "2", "--", "python", "train.py"],
  ["trainjob", "--nodes", "2"],
  ["trainjob", "--nodes", "2", "--no-preflight"],
  ["nccl-tests", "--nodes", "16", "--image", IMAGE],
  ["nccl-tests", "--nodes", "5", "--kind", "volcano", "--image", IMAGE],
];

describe("every container kube-rdma writes runs what its image carries", () => {
  test.each(JOBS.map((a) => [a.join(" "), a] as const))("job %s", async (_name, args) => {
    const objects = await generate([args[0]!, "--example", "training-pod", "--name", "llama", ...args.slice(1)]);
    expect(containers(objects).length).toBeGreaterThan(0);
    expect(misplaced(objects)).toEqual([]);
    const lint = lintManifestText(objects.map((o) => JSON.stringify(o)).join("\n---\n"), "job.yaml");
    expect(lint.findings.filter((f) => f.code === "IMAGE_LACKS_PROGRAM")).toEqual([]);
  });

  test("the preflight init container runs the kube-rdma image, not the training image", async () => {
    const objects = await generate(["pytorch", "--example", "training-pod", "--name", "llama", "--nodes", "2"]);
    const init = containers(objects).filter(({ c }) => programOf(c)?.program === "kube-rdma");
    expect(init.length).toBeGreaterThan(0);
    for (const { c } of init) expect(carriesKubeRdma(c.image)).toBe(true);
  });

  test("the device plugin, the node agent and the fleet collector pods run the kube-rdma image", () => {
    const pod = collectorPod({
      node: "n1",
      namespace: "kube-rdma",
      image: "ghcr.io/kube-rdma/kube-rdma:0.1.0",
      runId: "r",
      timeoutSeconds: 60,
    });
    const objects = [...deviceDaemonSetObjects({}), ...agentObjects(), pod] as Any[];
    // The agent and the collector run `kube-rdma …`; the device plugin runs the image's entrypoint (kube-rdma).
    expect(containers(objects).filter(({ c }) => programOf(c)?.program === "kube-rdma")).toHaveLength(2);
    for (const { c } of containers(objects)) expect(carriesKubeRdma(c.image)).toBe(true);
    expect(misplaced(objects)).toEqual([]);
  });
});

describe("lint: a container that runs a program its image does not carry", () => {
  const manifest = (image: string, command: string[]) => `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: llama}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          initContainers:
            - name: preflight
              image: ${image}
              command: ${JSON.stringify(command)}
          containers:
            - name: pytorch
              image: nvcr.io/nvidia/pytorch:24.05-py3
              command: ["torchrun", "train.py"]
`;
  test("kube-rdma preflight in the PyTorch image → error IMAGE_LACKS_PROGRAM naming the image and the fix", () => {
    const r = lintManifestText(manifest("nvcr.io/nvidia/pytorch:24.05-py3", ["kube-rdma", "preflight"]), "job.yaml");
    const f = r.findings.find((x) => x.code === "IMAGE_LACKS_PROGRAM");
    expect(f?.severity).toBe("error");
    expect(f?.message).toMatch(/runs `kube-rdma` in nvcr\.io\/nvidia\/pytorch:24\.05-py3, which does not carry it/);
    expect(f?.fix).toMatch(/ghcr\.io\/kube-rdma\/kube-rdma/);
  });
  test("through sh -c as well; the kube-rdma image (or a mirror of it, pinned by digest) is fine", () => {
    const viaShell = lintManifestText(
      manifest("python:3.12", ["sh", "-c", "exec kube-rdma preflight --job x"]),
      "j.yaml",
    );
    expect(viaShell.findings.map((f) => f.code)).toContain("IMAGE_LACKS_PROGRAM");
    for (const image of [
      "ghcr.io/kube-rdma/kube-rdma:0.1.0",
      `mirror.example.com/tools/kube-rdma@sha256:${"a".repeat(64)}`,
    ]) {
      const ok = lintManifestText(manifest(image, ["kube-rdma", "preflight"]), "job.yaml");
      expect(ok.findings.map((f) => f.code)).not.toContain("IMAGE_LACKS_PROGRAM");
    }
  });
});

describe("MPI workers run sshd: in an image that carries it", () => {
  // The worker's PID 1 is `bash -c '…; exec /usr/sbin/sshd -D -e'` (mpi-operator v2 starts the ranks over ssh). NGC
  // PyTorch ships no SSH server (https://github.com/kubeflow/mpi-operator/blob/master/build/base/Dockerfile is the
  // base the maintainers point to); CoreWeave's nccl-tests images install openssh-server
  // (https://github.com/coreweave/nccl-tests/blob/master/Dockerfile).
  const sshdFindings = async (args: string[]) => {
    const objects = await generate([...args, "--example", "training-pod", "--name", "llama"]);
    const lint = lintManifestText(objects.map((o) => JSON.stringify(o)).join("\n---\n"), "job.yaml");
    return { objects, findings: lint.findings.filter((f) => f.code === "IMAGE_LACKS_PROGRAM") };
  };

  test.each([["mpi"], ["volcano"]])(
    "job %s defaults to the NGC image with sshd added, which lint passes",
    async (kind) => {
      const { objects, findings } = await sshdFindings([kind, "--nodes", "2", "--", "python", "train.py"]);
      expect(findings).toEqual([]);
      const images = new Set(containers(objects).map(({ c }) => c.image as string));
      expect([...images].filter((i) => i.includes("pytorch"))).toEqual([`${PYTORCH_MPI_REPOSITORY}:24.05-py3`]);
    },
  );

  test.each([["mpi"], ["volcano"]])(
    "job %s with --image of plain NGC PyTorch: lint flags the workers' sshd",
    async (kind) => {
      const { findings } = await sshdFindings([
        kind,
        "--nodes",
        "2",
        "--image",
        "nvcr.io/nvidia/pytorch:24.05-py3",
        "--",
        "python",
        "train.py",
      ]);
      expect(findings.length).toBeGreaterThan(0);
      for (const f of findings) {
        expect(f.message).toMatch(/runs `sshd` in nvcr\.io\/nvidia\/pytorch:24\.05-py3, which does not carry it/);
        expect(f.fix).toContain("deploy/images/pytorch-mpi/Dockerfile");
      }
    },
  );

  test("an image whose contents are not known is not judged for sshd; kube-rdma still is", () => {
    expect(imageCarries("registry.example.com/team/trainer:1", "sshd")).toBeNull();
    expect(imageCarries("registry.example.com/team/trainer:1", "kube-rdma")).toBe(false);
    expect(imageCarries("mirror.example.com/nvidia/pytorch:24.05-py3", "sshd")).toBe(false);
    expect(imageCarries("ghcr.io/coreweave/nccl-tests:12.4.1-devel-ubuntu20.04-nccl2.27.3-1-d82e3c0", "sshd")).toBe(
      true,
    );
  });

  test("the shipped Dockerfile adds openssh-server to the NGC image and checks sshd is where the workers exec it", () => {
    const text = readFileSync(PYTORCH_MPI_DOCKERFILE, "utf8");
    expect(text).toMatch(/^ARG BASE_IMAGE=nvcr\.io\/nvidia\/pytorch:24\.05-py3$/m);
    expect(text).toMatch(/^FROM \$\{BASE_IMAGE\}$/m);
    expect(text).toMatch(/apt-get install -y --no-install-recommends openssh-server/);
    expect(text).toMatch(/test -x \/usr\/sbin\/sshd/);
  });
});
