/**
 * Stories of NCCL_SOCKET_IFNAME in the two networking modes: a pod on the pod network never gets a host interface
 * name (it does not have bond0), a hostNetwork pod gets the node's default-route interface.
 */
import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { main } from "../src/cli/main.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { impossibleOnPodNetwork, podInterfaceNames } from "../src/nccl/network-mode.js";
import { captureIo } from "./support/io.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function run(...args: string[]) {
  const io = captureIo();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** Every container of every pod template in a generated manifest, with its pod's hostNetwork. */
function containers(yaml: string): { hostNetwork: boolean; env: Record<string, string> }[] {
  const out: { hostNetwork: boolean; env: Record<string, string> }[] = [];
  const visit = (o: Any) => {
    if (!o || typeof o !== "object") return;
    if (Array.isArray(o.containers)) {
      for (const c of o.containers) {
        out.push({
          hostNetwork: o.hostNetwork === true,
          env: Object.fromEntries((c.env ?? []).map((e: Any) => [e.name, e.value])),
        });
      }
    }
    for (const v of Object.values(o)) visit(v);
  };
  for (const d of parseAllDocuments(yaml)) visit(d.toJS());
  return out;
}

describe("the node's bond0 never reaches a pod on the pod network", () => {
  test("nccl-env --example bond-management (a node whose default route is on bond0) leaves NCCL_SOCKET_IFNAME unset and says why", async () => {
    const { code, out } = await run("nccl-env", "--example", "bond-management", "-o", "json");
    expect(code).toBe(0);
    const j = JSON.parse(out);
    expect(j.env).not.toHaveProperty("NCCL_SOCKET_IFNAME");
    expect(j.reasons.NCCL_SOCKET_IFNAME).toMatch(/pod network has only its own interfaces.*bond0/);
    const text = await run("nccl-env", "--example", "bond-management");
    expect(text.out).toMatch(/^# NCCL_SOCKET_IFNAME not set: a pod on the pod network/m);
    expect(text.out).not.toMatch(/^NCCL_SOCKET_IFNAME=/m);
  });

  test("nccl-env --network host names bond0; --pod-interface eth0 names the pod's eth0; both together are a usage error", async () => {
    const host = JSON.parse(
      (await run("nccl-env", "--example", "bond-management", "--network", "host", "-o", "json")).out,
    );
    expect(host.env.NCCL_SOCKET_IFNAME).toBe("=bond0");
    expect(host.reasons.NCCL_SOCKET_IFNAME).toMatch(/hostNetwork: true/);
    const pod = JSON.parse(
      (await run("nccl-env", "--example", "bond-management", "--pod-interface", "eth0", "-o", "json")).out,
    );
    expect(pod.env.NCCL_SOCKET_IFNAME).toBe("=eth0");
    const both = await run("nccl-env", "--example", "bond-management", "--network", "host", "--pod-interface", "eth0");
    expect(both.code).toBe(2);
    expect((await run("nccl-env", "--example", "bond-management", "--pod-interface", "a b")).code).toBe(2);
  });

  test("device-plugin --example bond-management --dry-run injects no NCCL_SOCKET_IFNAME by default, bond0 with --network host", async () => {
    const pod = JSON.parse((await run("device-plugin", "--example", "bond-management", "--dry-run", "-o", "json")).out);
    expect(pod.allocate.envs).not.toHaveProperty("NCCL_SOCKET_IFNAME");
    expect(pod.allocate.envs.NCCL_IB_HCA).toBe("=mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9");
    const host = JSON.parse(
      (await run("device-plugin", "--example", "bond-management", "--dry-run", "-o", "json", "--network", "host")).out,
    );
    expect(host.allocate.envs.NCCL_SOCKET_IFNAME).toBe("=bond0");
    const help = (await run("device-plugin", "--help")).out;
    expect(help).toMatch(/Allocate does not see the pod spec/);
    expect(help).toMatch(/--network/);
  });

  test.each([
    ["pytorch"],
    ["mpi", "--", "python", "train.py"],
    ["volcano", "--", "python", "train.py"],
    ["nccl-tests", "--image", "registry.example/nccl-tests:11.4.3-devel-ubuntu20.04"],
    ["nccl-tests", "--kind", "volcano", "--image", "registry.example/nccl-tests:11.4.3-devel-ubuntu20.04"],
  ])(
    "job %s --example bond-management: no pod carries bond0; with --host-network every GPU pod does",
    async (...args) => {
      const [kind, ...rest] = args;
      const pod = await run("job", kind!, "--example", "bond-management", ...rest);
      expect(pod.code).toBe(0);
      for (const c of containers(pod.out)) expect(c.env.NCCL_SOCKET_IFNAME).toBeUndefined();
      const host = await run("job", kind!, "--example", "bond-management", "--host-network", ...rest);
      const all = containers(host.out);
      expect(all.every((c) => c.hostNetwork)).toBe(true);
      expect(all.some((c) => c.env.NCCL_SOCKET_IFNAME === "=bond0")).toBe(true);
      const withEth0 = await run("job", kind!, "--example", "bond-management", "--pod-interface", "eth0", ...rest);
      expect(containers(withEth0.out).some((c) => c.env.NCCL_SOCKET_IFNAME === "=eth0")).toBe(true);
      const noNode = await run("job", kind!, "--pod-interface", "net1", ...rest);
      expect(containers(noNode.out).some((c) => c.env.NCCL_SOCKET_IFNAME === "=net1")).toBe(true);
      expect((await run("job", kind!, "--host-network", "--pod-interface", "eth0", ...rest)).code).toBe(2);
    },
  );
});

describe("lint: an NCCL_SOCKET_IFNAME that cannot exist in the pod's network", () => {
  const pod = (env: string, extra = "", annotations = "") => `apiVersion: v1
kind: Pod
metadata:
  name: trainer
${annotations ? `  annotations:\n    k8s.v1.cni.cncf.io/networks: '${annotations}'\n` : ""}spec:
${extra}  containers:
    - name: nccl
      image: img
      env:
        - name: NCCL_SOCKET_IFNAME
          value: "${env}"
`;
  const codes = (yaml: string) => lintManifestText(yaml, "p.yaml").findings.map((f) => `${f.code} ${f.field}`);

  test("a pod on the pod network told to use the node's bond0 → error SOCKET_IFNAME_NOT_IN_POD at the env value", () => {
    const r = lintManifestText(pod("=bond0"), "p.yaml");
    expect(r.findings.map((f) => `${f.severity} ${f.code} ${f.field}`)).toEqual([
      "error SOCKET_IFNAME_NOT_IN_POD spec.containers[0].env[0].value",
    ]);
    expect(r.findings[0]!.message).toMatch(/bond0 cannot exist there/);
    expect(r.findings[0]!.fix).toMatch(/hostNetwork: true/);
  });

  test.each(["=bond0", "ens1f0", "eth1", "=eth1", "ib0", "enp94s0f0,eth0x"])(
    "%s on the pod network is flagged",
    (value) => {
      expect(codes(pod(value))).toEqual(["SOCKET_IFNAME_NOT_IN_POD spec.containers[0].env[0].value"]);
    },
  );

  test.each(["=eth0", "eth", "eth0", "^docker,lo", "=net1", "net"])(
    "%s on the pod network is a name the pod has",
    (value) => {
      expect(codes(pod(value))).toEqual([]);
    },
  );

  test("the same bond0 on a hostNetwork pod is the node's own interface: not flagged", () => {
    expect(codes(pod("=bond0", "  hostNetwork: true\n  dnsPolicy: ClusterFirstWithHostNet\n"))).toEqual([]);
  });

  test("a Multus attachment named @rdma0 (or JSON interface) makes that name exist in the pod", () => {
    expect(codes(pod("=rdma0", "", "kube-system/roce@rdma0"))).toEqual([]);
    expect(codes(pod("=rdma0", "", '[{"name":"roce","interface":"rdma0"}]'))).toEqual([]);
    expect(podInterfaceNames("a, ns/b@data1")).toEqual(["lo", "eth0", "data1"]);
    expect(impossibleOnPodNetwork("=rdma1", podInterfaceNames("ns/roce@rdma0"))).toEqual(["rdma1"]);
  });
});
