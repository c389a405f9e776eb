/**
 * Ranks started by mpirun over ssh see only what mpirun forwards and what their own command sets. Stories: every
 * generated launcher forwards the job's NCCL variables with -x; a job that leaves the NCCL values to the device
 * plugin still gets them into every rank (run for real with bash, the way sshd would start the rank).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { mergeContainerEnv } from "../src/device-plugin/env-merge.js";
import { WORKER_NCCL_ENV_FILE } from "../src/kube/job/mpirun.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { captureIo } from "./support/io.js";
import { jobDoc } from "./support/kube/generated.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function run(...args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

const KINDS: [label: string, args: string[]][] = [
  ["mpi", ["mpi", "--", "python", "train.py"]],
  ["volcano", ["volcano", "--", "python", "train.py"]],
  ["nccl-tests (MPIJob)", ["nccl-tests", "--image", "registry.example/nccl-tests:cuda11.4"]],
  ["nccl-tests --kind volcano", ["nccl-tests", "--kind", "volcano", "--image", "registry.example/nccl-tests:cuda11.4"]],
];

/** The launcher (no rdma/hca) and a worker (rdma/hca) container of a generated MPIJob or Volcano Job. */
function roles(yaml: string): { launcher: Any; worker: Any } {
  const d = jobDoc(yaml);
  const templates =
    d.kind === "MPIJob"
      ? Object.values(d.spec.mpiReplicaSpecs).map((r: Any) => r.template)
      : d.spec.tasks.map((t: Any) => t.template);
  const containers = templates.map((t: Any) => t.spec.containers[0]);
  return {
    launcher: containers.find((c: Any) => !c.resources),
    worker: containers.find((c: Any) => c.resources?.limits?.["rdma/hca"]),
  };
}

/** The launcher's mpirun words (argv, or the words of its bash -c script). */
function mpirunLine(launcher: Any): string {
  const words = [...launcher.command, ...(launcher.args ?? [])];
  return words[0] === "mpirun" ? words.join(" ") : words[2].slice(words[2].indexOf("mpirun"));
}

/** The script of the `/bin/bash -c SCRIPT` that mpirun runs as each rank's program. */
function rankScript(launcher: Any): string {
  const words = [...launcher.command, ...(launcher.args ?? [])];
  if (words[0] === "mpirun") return words[words.indexOf("/bin/bash") + 2];
  const line = mpirunLine(launcher);
  const start = line.indexOf("/bin/bash -c '") + "/bin/bash -c '".length;
  expect(start).toBeGreaterThan(20);
  return line.slice(start, line.indexOf("'", start));
}

describe("mpirun forwards the job's NCCL variables with -x, on every MPI job kind", () => {
  test.each(KINDS)(
    "%s --example a100-8x-roce: each derived variable is in the launcher's env and forwarded",
    async (_, args) => {
      const r = await run("job", "--example", "a100-8x-roce", ...args);
      expect(r.code).toBe(0);
      const { launcher } = roles(r.out);
      const env = Object.fromEntries(launcher.env.map((e: Any) => [e.name, e.value]));
      const line = mpirunLine(launcher);
      for (const name of ["NCCL_IB_HCA", "NCCL_IB_GID_INDEX"]) {
        expect(env[name], name).toBeDefined();
        expect(line).toMatch(new RegExp(`-x ${name}(\\s|$)`));
      }
      expect(lintManifestText(r.out, "job.yaml").findings.filter((f) => f.severity !== "info")).toEqual([]);
    },
  );
});

describe("no node source: the device plugin's values reach every rank through its worker", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-ranks-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each(KINDS)(
    "%s: a rank started over ssh gets NCCL_IB_HCA and the GID index the plugin injected into its worker",
    async (label, args) => {
      const r = await run("job", ...args);
      expect(r.code).toBe(0);
      const { launcher, worker } = roles(r.out);
      // What the device plugin's Allocate would inject on the A100 RoCE example node, merged as the kubelet does.
      const plugin = JSON.parse(
        (await run("device-plugin", "--example", "a100-8x-roce", "--dry-run", "-o", "json")).out,
      );
      const workerEnv = mergeContainerEnv(plugin.allocate.envs, worker.env);
      expect(launcher.env.map((e: Any) => e.name)).not.toContain("NCCL_IB_HCA");

      // The worker's PID 1 (bash -c SCRIPT) saves its NCCL variables; stop before it would become sshd.
      const file = join(dir, `${label.replace(/\W+/g, "-")}.env`);
      const [save] = (worker.command[2] as string).replaceAll(WORKER_NCCL_ENV_FILE, file).split("; mkdir ");
      execFileSync("/bin/bash", ["-c", save!], { env: { PATH: process.env.PATH, ...workerEnv } });

      // The rank: sshd starts it with a fresh env (PATH only here); mpirun's words after the -x flags run it.
      const script = rankScript(launcher);
      const rankEnv = execFileSync("/bin/bash", ["-c", script.replaceAll(WORKER_NCCL_ENV_FILE, file), "env"], {
        env: { PATH: process.env.PATH },
        encoding: "utf8",
      });
      expect(rankEnv).toContain(`NCCL_IB_HCA=${plugin.allocate.envs.NCCL_IB_HCA}\n`);
      expect(rankEnv).toContain("NCCL_IB_GID_INDEX=3\n");
      expect(rankEnv).toContain("NCCL_DEBUG=INFO\n");
      expect(lintManifestText(r.out, "job.yaml").findings.filter((f) => f.severity !== "info")).toEqual([]);
    },
  );
});

describe("lint: an MPI job whose ranks would start without the NCCL variables", () => {
  const mpijob = (launcherExtra: string, launcherArgs: string) => `apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: bench
spec:
  slotsPerWorker: 8
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - name: launcher
              image: img
${launcherExtra}              command: [mpirun]
              args: [${launcherArgs}]
    Worker:
      replicas: 2
      template:
        metadata:
          annotations:
            sidecar.istio.io/inject: "false"
        spec:
          schedulerName: volcano
          containers:
            - name: worker
              image: img
              command: [/usr/sbin/sshd, -De]
              resources:
                limits: {nvidia.com/gpu: 8, rdma/hca: 1}
              securityContext:
                capabilities: {add: [IPC_LOCK]}
              volumeMounts: [{name: dshm, mountPath: /dev/shm}]
          volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 32Gi}}]
`;
  const codes = (yaml: string) =>
    lintManifestText(yaml, "m.yaml")
      .findings.filter((f) => f.code === "MPI_RANKS_WITHOUT_NCCL_ENV")
      .map((f) => `${f.severity} ${f.container} ${f.field}`);

  test("a launcher with no NCCL_IB_HCA to forward, ranks that read nothing → warning at the launcher's mpirun", () => {
    expect(codes(mpijob("", "-np, '16', -x, NCCL_IB_HCA, all_reduce_perf"))).toEqual([
      "warning launcher spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].command",
    ]);
  });

  test("forwarding a value (-x NCCL_IB_HCA==mlx5_1), or one set on the launcher, or sourcing the worker's file is fine", () => {
    expect(codes(mpijob("", "-np, '16', -x, NCCL_IB_HCA==mlx5_1, all_reduce_perf"))).toEqual([]);
    const env = "              env: [{name: NCCL_IB_HCA, value: '=mlx5_1'}]\n";
    expect(codes(mpijob(env, "-np, '16', -x, NCCL_IB_HCA, all_reduce_perf"))).toEqual([]);
    expect(
      codes(mpijob("", `-np, '16', /bin/bash, -c, '. /tmp/kube-rdma-nccl.env && exec "$0" "$@"', all_reduce_perf`)),
    ).toEqual([]);
  });

  test("a Volcano ssh job whose mpimaster runs the ranks without the worker's file → warning at the mpimaster's command", async () => {
    const r = await run("job", "nccl-tests", "--kind", "volcano", "--image", "registry.example/nccl-tests:cuda11.4");
    expect(lintManifestText(r.out, "v.yaml").findings).toEqual([]);
    const old = r.out.replace(` /bin/bash -c '. ${WORKER_NCCL_ENV_FILE} && exec "$0" "$@"'`, "");
    expect(old).not.toBe(r.out);
    expect(
      lintManifestText(old, "v.yaml").findings.map((f) => `${f.severity} ${f.code} ${f.container} ${f.field}`),
    ).toEqual(["warning MPI_RANKS_WITHOUT_NCCL_ENV mpimaster spec.tasks[0].template.spec.containers[0].command"]);
  });
});
