/**
 * The README's install section, followed line by line against a Kubernetes API server (the fake one the tests run):
 * the image it builds is the one image every manifest names; `kubectl apply -k` of each overlay creates every object
 * in a valid order (namespaces before what lives in them, service accounts and RBAC before the workloads that use
 * them) and every object is valid against the Kubernetes models; the DaemonSets it waits for exist; and
 * `kube-rdma cluster` then finds the device plugin it installed.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { makeClients } from "../src/kube/api/client.js";
import { loadKubeConfig } from "../src/kube/api/config.js";
import { KUBE_RDMA_IMAGE } from "../src/kube/image.js";
import { captureIo } from "./support/io.js";
import { node, seedCluster } from "./support/kube/cluster-fixtures.js";
import { startFakeApi } from "./support/kube/fake-api.js";
import { validateCoreObject } from "./support/kube/schemas.js";
import { kustomizeBuild, type Obj } from "./support/kustomize.js";

const README = readFileSync("README.md", "utf8");
const section = /<!-- install:begin -->([\s\S]*?)<!-- install:end -->/.exec(README)?.[1] ?? "";
const commands = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "")
  .split("\n")
  .map((l) => l.replace(/\s+#.*$/, "").trim())
  .filter(Boolean);

/** Whether `objects` could be created in this order: what each object needs was created before it. */
function orderProblems(objects: readonly Obj[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  const need = (o: Obj, key: string, what: string) => {
    if (!seen.has(key)) problems.push(`${o.kind}/${o.metadata.name} before ${what}`);
  };
  for (const o of objects) {
    const ns = o.metadata?.namespace;
    if (ns && ns !== "default" && ns !== "kube-system") need(o, `Namespace/${ns}`, `its namespace ${ns}`);
    const sa = o.spec?.template?.spec?.serviceAccountName ?? o.spec?.serviceAccountName;
    if (sa) need(o, `ServiceAccount/${ns}/${sa}`, `its service account ${sa}`);
    if (o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding") {
      const ref = o.roleRef;
      need(o, ref.kind === "Role" ? `Role/${ns}/${ref.name}` : `ClusterRole/${ref.name}`, `${ref.kind} ${ref.name}`);
    }
    seen.add(
      o.kind === "Namespace" ? `Namespace/${o.metadata.name}` : `${o.kind}/${ns ? `${ns}/` : ""}${o.metadata.name}`,
    );
  }
  return problems;
}

describe("install on a cluster, as the README says", () => {
  test("the section gives the commands in order: build and push the image, apply, wait, check", () => {
    expect(commands[0]).toBe(`docker build -t ${KUBE_RDMA_IMAGE} . && docker push ${KUBE_RDMA_IMAGE}`);
    expect(existsSync("Dockerfile")).toBe(true);
    expect(commands.find((c) => c.startsWith("kubectl apply -k"))).toBe("kubectl apply -k deploy/overlays/default");
    expect(commands.at(-1)).toBe("kube-rdma cluster");
  });

  test.each(["deploy/overlays/default", "deploy/overlays/nfd"])(
    "%s: every object valid, in a valid order, one image",
    (dir) => {
      const objects = kustomizeBuild(dir);
      expect(objects.map((o) => o.kind)).toEqual(
        expect.arrayContaining(["Namespace", "DaemonSet", "ValidatingAdmissionPolicy"]),
      );
      expect(orderProblems(objects)).toEqual([]);
      for (const o of objects) expect(validateCoreObject(o), `${o.kind}/${o.metadata.name}`).toEqual([]);
      const images = new Set(
        objects.flatMap((o) => (o.spec?.template?.spec?.containers ?? []).map((c: Obj) => c.image as string)),
      );
      expect([...images]).toEqual([KUBE_RDMA_IMAGE]);
      const selectors = objects.filter((o) => o.kind === "DaemonSet").map((o) => o.spec.template.spec.nodeSelector);
      if (dir.endsWith("nfd"))
        for (const s of selectors) expect(s["feature.node.kubernetes.io/pci-15b3.present"]).toBe("true");
      else for (const s of selectors) expect(s).toEqual({ "kubernetes.io/os": "linux" });
    },
  );

  test("followed line by line against an API server: every object created, the DaemonSets there, cluster finds the plugin", async () => {
    // A cluster with GPU nodes, Volcano and the training operator, but no RDMA device plugin yet.
    const objects = seedCluster({
      nodes: [node({ name: "gpu-01", gpus: 8, rdma: "1k" }), node({ name: "gpu-02", gpus: 8, rdma: "1k" })],
    });
    objects.daemonsets = (objects.daemonsets ?? []).filter((d) => !/rdma/.test(d.metadata.name));
    const api = await startFakeApi(objects);
    const before = captureIo();
    await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json"], before);
    expect((JSON.parse(before.out).findings as Obj[]).map((f) => f.code)).toContain("RDMA_DEVICE_PLUGIN_MISSING");
    try {
      const clients = makeClients(loadKubeConfig({ kubeconfig: api.kubeconfig, env: {} }), "cluster-admin");
      for (const line of commands) {
        const apply = /^kubectl apply -k (\S+)$/.exec(line);
        const rollout = /^kubectl -n (\S+) rollout status ds\/(\S+)$/.exec(line);
        if (apply) {
          const { createObjects } = await import("../src/kube/api/client.js");
          const created = await createObjects(clients, kustomizeBuild(apply[1]!) as never);
          expect(created.length).toBeGreaterThan(10);
        } else if (rollout) {
          const ds = api.store
            .get("daemonsets")!
            .find((d) => d.metadata.name === rollout[2] && d.metadata.namespace === rollout[1]);
          expect(ds, line).toBeDefined();
          // The DaemonSet controller's part: every selected node runs its pod.
          ds!.status = {
            desiredNumberScheduled: 2,
            currentNumberScheduled: 2,
            numberReady: 2,
            numberAvailable: 2,
            updatedNumberScheduled: 2,
          };
        } else if (line === "kube-rdma cluster") {
          const io = captureIo();
          await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json"], io);
          const report = JSON.parse(io.out);
          const codes = (report.findings as Obj[]).map((f) => f.code);
          expect(codes).not.toContain("RDMA_DEVICE_PLUGIN_MISSING");
          expect(codes).not.toContain("DEVICE_PLUGIN_NOT_READY");
          expect(JSON.stringify(report)).toMatch(/kube-rdma-device-plugin/);
        } else {
          expect(line).toMatch(/^docker (build|push)/);
        }
      }
    } finally {
      await api.close();
    }
  });
});
