/**
 * The README's install section followed line by line on a cluster that enforces what a real API server does
 * (test/support/kube/enforced-install.ts: RBAC from the shipped roles per identity, the shipped admission policies
 * evaluated in CEL, DaemonSet placement, CRD schemas, one pullable kube-rdma image), then every cluster feature run
 * with its defaults, as the identity that runs it in a real install:
 *   the agent on each node (its pod's token names its node) writes its report and its HCA quarantine;
 *   `fleet verify` (the kube-rdma ServiceAccount) reads the reports, and with --max-age 0 creates collector pods;
 *   `fleet bench` creates its MPIJobs; every `job` kind is created by a user bound to deploy/job's role;
 *   `cluster` finds the device plugin and the agent; the quarantine file the agent writes is the one the plugin reads.
 * The second part breaks one shipped object at a time, as the defects this suite exists for did, and shows the run
 * fails.
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { readQuarantine } from "../src/device-plugin/quarantine.js";
import { KUBE_RDMA_IMAGE } from "../src/kube/image.js";
import { captureIo } from "./support/io.js";
import { emptySnapshotLog } from "./support/kube/cluster-fixtures.js";
import {
  agentUser,
  type EnforcedCluster,
  enforcedCluster,
  FLEET_USER,
  flagValue,
  hostFileOf,
  JOB_USER,
  RDMA_NODES,
} from "./support/kube/enforced-install.js";
import type { Obj } from "./support/kube/fake-api.js";
import { kustomizeBuild } from "./support/kustomize.js";

const README = readFileSync("README.md", "utf8");
const section = /<!-- install:begin -->([\s\S]*?)<!-- install:end -->/.exec(README)?.[1] ?? "";
const INSTALL_COMMANDS = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "")
  .split("\n")
  .map((l) => l.replace(/\s+#.*$/, "").trim())
  .filter(Boolean);

let cluster: EnforcedCluster | undefined;
afterEach(async () => {
  await cluster?.api.close();
  cluster = undefined;
});

type Outcome = {
  /** Objects the rendered install holds, as applied. */
  objects: Obj[];
  agentPods: string[];
  pluginPods: string[];
  controllerErrors: string[];
  /** Requests admission refused. */
  refused: string[];
  agentExit: Record<string, number>;
  reports: string[];
  verifyFromReports: { exit: number; collectorPods: number; err: string };
  verifyWithPods: { exit: number; out: string; err: string; pods: Obj[] };
  quarantine: { agentHost: string | null; pluginHost: string | null; agentWritable: boolean; hcas: string[] };
};

/**
 * Installs (README line by line; `mutate` may change the rendered objects first, as a broken release would) and runs
 * the agent and fleet verify with their defaults.
 */
async function installAndRun(mutate?: (objects: Obj[]) => void, env: Record<string, string> = {}): Promise<Outcome> {
  const collectors: Obj[] = [];
  cluster = await enforcedCluster({
    onPodCreated: (pod) => {
      if (!pod.metadata.labels?.["kube-rdma.io/fleet-run"]) return undefined;
      collectors.push(pod);
      return { phase: "Succeeded", log: emptySnapshotLog(pod.spec.nodeName) };
    },
  });
  const c = cluster;
  const hostRoot = mkdtempSync(join(tmpdir(), "kube-rdma-e2e-host-"));
  let objects: Obj[] = [];
  for (const line of INSTALL_COMMANDS) {
    const apply = /^kubectl apply -k (\S+)$/.exec(line);
    const label = /^kubectl label node NODE (\S+)=(\S+)$/.exec(line);
    const rollout = /^kubectl -n (\S+) rollout status ds\/(\S+)$/.exec(line);
    if (apply) {
      objects = kustomizeBuild(apply[1]!);
      mutate?.(objects);
      await c.apply(objects);
    } else if (label) {
      // The hand-labelled node of the fixture: gpu-03 has no operator labels.
      const n = c.api.store.get("nodes")!.find((x) => x.metadata.name === "gpu-03")!;
      n.metadata.labels[label[1]!] = label[2]!;
    } else if (rollout) {
      const ds = c.api.store
        .get("daemonsets")!
        .find((d) => d.metadata.name === rollout[2] && d.metadata.namespace === rollout[1]);
      expect(ds, line).toBeDefined();
    } else if (line === "npx kube-rdma cluster") {
      // run below, after the agents have reported
    } else {
      expect(line).toMatch(/^(npm ci|docker (build|push))/);
    }
  }
  const podsOf = (ds: string) =>
    c.api.store
      .get("pods")!
      .filter((p) => p.metadata.ownerReferences?.some((o: Obj) => o.name === ds) && p.status?.phase === "Running")
      .map((p) => p.spec.nodeName as string)
      .sort();
  const agentPods = podsOf("kube-rdma-agent");
  const pluginPods = podsOf("kube-rdma-device-plugin");

  // Each agent pod, once, with its own token: the DaemonSet's command line, its host's files from the example.
  const agentDs = objects.find((o) => o.kind === "DaemonSet" && o.metadata.name === "kube-rdma-agent");
  const pluginDs = objects.find((o) => o.kind === "DaemonSet" && o.metadata.name === "kube-rdma-device-plugin");
  const agentSpec = agentDs?.spec.template.spec ?? { containers: [] };
  const pluginSpec = pluginDs?.spec.template.spec ?? { containers: [] };
  const agentQ = flagValue(agentSpec, "agent", "--quarantine-file");
  const pluginQ = flagValue(pluginSpec, "device-plugin", "--quarantine-file");
  const agentHost = agentQ ? hostFileOf(agentSpec, "agent", agentQ) : null;
  const pluginHost = pluginQ ? hostFileOf(pluginSpec, "device-plugin", pluginQ) : null;
  const agentExit: Record<string, number> = {};
  for (const n of agentPods) {
    const example = n === "gpu-02" ? "port-down" : "a100-8x-roce";
    const file = agentHost ? join(hostRoot, n, agentHost.host) : undefined;
    if (file) mkdirSync(dirname(file), { recursive: true });
    const io = captureIo();
    agentExit[n] = await main(
      [
        "agent",
        "--once",
        // A run past the start-up grace (the agent writes no quarantine while OFED and links may still be coming up).
        "--startup-grace",
        "0",
        "--example",
        example,
        "--node-name",
        n,
        "--kubeconfig",
        c.kubeconfig(agentUser(n)),
        ...(file ? ["--quarantine-file", file] : []),
      ],
      { ...io, env: {} },
    );
  }
  const reports = c.api.store
    .get("configmaps")!
    .filter((m) => m.metadata.namespace === "kube-rdma" && m.metadata.name.startsWith("kube-rdma-node-"))
    .map((m) => m.metadata.name as string)
    .sort();
  let hcas: string[] = [];
  if (agentHost && pluginHost && agentHost.host === pluginHost.host) {
    try {
      const text = readFileSync(join(hostRoot, "gpu-02", pluginHost.host), "utf8");
      const q = readQuarantine(text, new Date(), 1800);
      hcas = q.ok ? [...q.byHca.keys()] : [];
    } catch {
      hcas = [];
    }
  }

  // fleet verify as the kube-rdma ServiceAccount: from the agents' reports, then (--max-age 0) by collector pods.
  const fleetKc = c.kubeconfig(FLEET_USER);
  const podsBefore = collectors.length;
  const v1 = captureIo();
  const exit1 = await main(["fleet", "verify", "--kubeconfig", fleetKc, "-o", "json", "--timeout", "5"], {
    ...v1,
    env,
  });
  const collectorPods1 = collectors.length - podsBefore;
  const admittedBefore = collectors.length;
  const v2 = captureIo();
  const exit2 = await main(
    [
      "fleet",
      "verify",
      "--kubeconfig",
      fleetKc,
      "-o",
      "json",
      "--max-age",
      "0",
      "--timeout",
      "5",
      "--poll-interval",
      "10",
    ],
    { ...v2, env },
  );
  return {
    objects,
    agentPods,
    pluginPods,
    controllerErrors: [...c.api.controllerErrors],
    agentExit,
    reports,
    verifyFromReports: { exit: exit1, collectorPods: collectorPods1, err: v1.err },
    verifyWithPods: {
      exit: exit2,
      out: v2.out,
      err: v2.err,
      pods: collectors.slice(admittedBefore),
    },
    refused: [...c.api.refused],
    quarantine: {
      agentHost: agentHost?.host ?? null,
      pluginHost: pluginHost?.host ?? null,
      agentWritable: agentHost?.writable ?? false,
      hcas,
    },
  };
}

describe("install with the README on a cluster that enforces, every feature with its defaults", () => {
  test("the README's install section: npm ci, build and push the one image, label, apply, wait, npx kube-rdma cluster", () => {
    expect(INSTALL_COMMANDS[0]).toBe("npm ci");
    expect(INSTALL_COMMANDS).toContain(`docker build -t ${KUBE_RDMA_IMAGE} . && docker push ${KUBE_RDMA_IMAGE}`);
    expect(INSTALL_COMMANDS).toContain("kubectl apply -k deploy/overlays/default");
    expect(INSTALL_COMMANDS.at(-1)).toBe("npx kube-rdma cluster");
  });

  test("agent and plugin admitted on the RDMA GPU nodes only; reports written; fleet verify reads them, its collectors admitted; quarantine shared", async () => {
    const o = await installAndRun();
    expect(o.controllerErrors).toEqual([]);
    expect(o.agentPods).toEqual(RDMA_NODES);
    expect(o.pluginPods).toEqual(RDMA_NODES);
    expect(o.agentExit).toEqual({ "gpu-01": 0, "gpu-02": 1, "gpu-03": 0 });
    expect(o.reports).toEqual(RDMA_NODES.map((n) => `kube-rdma-node-${n}`));
    // fleet verify judged every node from its report: no collector pod.
    expect(o.verifyFromReports.collectorPods).toBe(0);
    expect(o.verifyFromReports.err).toMatch(/report/);
    // With --max-age 0 it creates a collector pod per node: every one admitted, in the one image, and read.
    expect(o.verifyWithPods.pods.map((p) => p.spec.nodeName).sort()).toEqual(RDMA_NODES);
    for (const p of o.verifyWithPods.pods) {
      expect(p.spec.containers[0].image).toBe(KUBE_RDMA_IMAGE);
    }
    expect(o.refused).toEqual([]);
    expect(o.verifyWithPods.exit, o.verifyWithPods.err).not.toBe(2);
    // The agent's quarantine lands in the host file the plugin reads, and names the HCA whose port is down.
    expect(o.quarantine.agentHost).not.toBeNull();
    expect(o.quarantine.agentHost).toBe(o.quarantine.pluginHost);
    expect(o.quarantine.agentWritable).toBe(true);
    expect(o.quarantine.hcas).toEqual(["mlx5_3"]);

    // npx kube-rdma cluster: the device plugin and the agent found, running.
    const io = captureIo();
    await main(
      [
        "cluster",
        "--kubeconfig",
        cluster!.kubeconfig({ username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] }),
        "-o",
        "json",
      ],
      io,
    );
    const report = JSON.parse(io.out);
    const codes = (report.findings as Obj[]).map((f) => f.code);
    expect(codes).not.toContain("RDMA_DEVICE_PLUGIN_MISSING");
    expect(codes).not.toContain("DEVICE_PLUGIN_NOT_READY");
    expect(JSON.stringify(report)).toMatch(/kube-rdma-device-plugin/);
  }, 60_000);

  test("fleet bench with its defaults creates its MPIJobs, valid against the MPIJob CRD, their pods admitted", async () => {
    const o = await installAndRun();
    expect(o.controllerErrors).toEqual([]);
    const c = cluster!;
    const io = captureIo();
    await main(
      [
        "fleet",
        "bench",
        "--kubeconfig",
        c.kubeconfig(FLEET_USER),
        "--timeout",
        "1",
        "--poll-interval",
        "10",
        "-o",
        "json",
      ],
      io,
    );
    const created = c.api.requests.filter((r) => /^POST .*\/namespaces\/kube-rdma-bench\/mpijobs$/.test(r));
    expect(created.length, io.err).toBeGreaterThan(0);
    expect(io.err).not.toMatch(/forbidden|denied|invalid/i);
    expect(c.api.controllerErrors).toEqual([]);
    const benchPods = c.api.requests.filter((r) => /^DELETE .*\/namespaces\/kube-rdma-bench\/mpijobs\//.test(r));
    expect(benchPods.length).toBe(created.length);
  }, 60_000);

  test.each([
    ["pytorch", ["--example", "a100-8x-roce", "--", "train.py"]],
    ["mpi", ["--example", "a100-8x-roce", "--", "python", "train.py"]],
    ["volcano", ["--example", "a100-8x-roce", "--", "python", "train.py"]],
    ["nccl-tests", ["--example", "a100-8x-roce"]],
    ["nccl-tests", ["--example", "a100-8x-roce", "--kind", "volcano"]],
  ])(
    "job %s %j --apply by a user bound to deploy/job's role: created, its pods admitted",
    async (kind, args) => {
      await installAndRun();
      const c = cluster!;
      const jobRbac = parseAllDocuments(readFileSync("deploy/job/rbac.yaml", "utf8")).map((d) => d.toJS() as Obj);
      await c.apply([
        ...jobRbac,
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name: "kube-rdma-job-creator", namespace: "default" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kube-rdma-job-creator" },
          subjects: [{ kind: "User", name: JOB_USER.username, apiGroup: "rbac.authorization.k8s.io" }],
        },
      ]);
      const io = captureIo();
      const code = await main(
        ["job", kind, "--nodes", "2", "--apply", "--kubeconfig", c.kubeconfig(JOB_USER), ...args],
        { ...io, env: {} },
      );
      expect(code, io.err).toBe(0);
      expect(c.api.controllerErrors).toEqual([]);
      const pods = c.api.store.get("pods")!.filter((p) => p.metadata.namespace === "default");
      expect(pods.length).toBeGreaterThan(0);
      for (const p of pods) {
        // The containers that run kube-rdma (the preflight) name the one kube-rdma image.
        for (const ctr of [...(p.spec.initContainers ?? []), ...p.spec.containers]) {
          if ((ctr.command ?? [])[0] === "kube-rdma") expect(ctr.image).toBe(KUBE_RDMA_IMAGE);
        }
        expect(p.status?.containerStatuses?.[0]?.state?.waiting?.reason).not.toBe("ErrImagePull");
      }
      expect(pods.some((p) => (p.spec.initContainers ?? []).some((x: Obj) => x.command?.[0] === "kube-rdma"))).toBe(
        true,
      );
    },
    60_000,
  );
});

describe("the enforcing cluster catches each way the install refused its own objects", () => {
  test("1: the collector policy bound to every pod of kube-rdma (no exception for the DaemonSet controller): the agent is refused", async () => {
    const o = await installAndRun((objects) => {
      const p = objects.find(
        (x) => x.kind === "ValidatingAdmissionPolicy" && x.metadata.name === "kube-rdma-collector-shape",
      );
      delete p!.spec.matchConditions;
    });
    expect(o.agentPods).toEqual([]);
    expect(o.controllerErrors.join("\n")).toMatch(
      /DaemonSet kube-rdma\/kube-rdma-agent: kube-rdma-collector-shape: a collector pod/,
    );
  }, 60_000);

  test("2: a second image name (the CLI's old default kube-rdma:VERSION): the collector pods are refused", async () => {
    const o = await installAndRun(undefined, { KUBE_RDMA_IMAGE: "kube-rdma:0.1.0" });
    expect(o.verifyWithPods.pods).toEqual([]);
    expect(o.verifyWithPods.exit).not.toBe(0);
    expect(o.refused.join("\n")).toMatch(/kube-rdma-collector-shape: a collector pod runs the image the install runs/);
  }, 60_000);

  test("2: a mirror set only in the DaemonSets, not in the policy's parameter: the collector pods are refused", async () => {
    const mirror = "registry.example.com/mirror/kube-rdma:0.1.0";
    const o = await installAndRun(
      (objects) => {
        for (const d of objects.filter((x) => x.kind === "DaemonSet"))
          d.spec.template.spec.containers[0].image = mirror;
      },
      { KUBE_RDMA_IMAGE: mirror },
    );
    expect(o.verifyWithPods.pods).toEqual([]);
    expect(o.refused.join("\n")).toMatch(/kube-rdma-collector-shape: a collector pod runs the image the install runs/);
  }, 60_000);

  test("3: the fleet Role without configmaps: fleet verify cannot read the reports and starts collector pods", async () => {
    const o = await installAndRun((objects) => {
      const r = objects.find((x) => x.kind === "Role" && x.metadata.name === "kube-rdma-fleet");
      r!.rules = r!.rules.filter((x: Obj) => !x.resources.includes("configmaps"));
    });
    expect(o.reports).toHaveLength(3);
    expect(o.verifyFromReports.collectorPods).toBeGreaterThan(0);
  }, 60_000);

  test("4: the device plugin without --quarantine-file on the shared host directory: the quarantine never reaches it", async () => {
    const o = await installAndRun((objects) => {
      const d = objects.find((x) => x.kind === "DaemonSet" && x.metadata.name === "kube-rdma-device-plugin");
      const c = d!.spec.template.spec.containers[0];
      const i = c.args.indexOf("--quarantine-file");
      c.args.splice(i, 2);
    });
    expect(o.quarantine.pluginHost).toBeNull();
    expect(o.quarantine.hcas).toEqual([]);
  }, 60_000);
});
