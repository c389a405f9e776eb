/**
 * The README's install section and what it applies: the image it builds is the one image every manifest names;
 * `kubectl apply -k` creates every object in a valid order (namespaces before what lives in them, service accounts
 * and RBAC before the workloads that use them), every object valid against the Kubernetes models; a mirror set once
 * reaches every use. test/install-e2e.test.ts follows the section on a cluster that enforces RBAC and admission.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { KUBE_RDMA_IMAGE } from "../src/kube/image.js";
import { AGENT_METRICS_PORT, PLUGIN_METRICS_PORT, rdmaGpuNodeAffinity } from "../src/kube/node-placement.js";
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
  test("the section gives the commands in order: build and push the image, label, apply, wait, check", () => {
    expect(commands[0]).toBe("npm ci");
    expect(commands[1]).toBe(`docker build -t ${KUBE_RDMA_IMAGE} . && docker push ${KUBE_RDMA_IMAGE}`);
    expect(existsSync("Dockerfile")).toBe(true);
    expect(commands.find((c) => c.startsWith("kubectl apply -k"))).toBe("kubectl apply -k deploy/overlays/default");
    expect(commands.at(-1)).toBe("npx kube-rdma cluster");
  });

  test("deploy/overlays/default: every object valid, in a valid order, one image, RDMA GPU nodes only", () => {
    const objects = kustomizeBuild("deploy/overlays/default");
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["Namespace", "DaemonSet", "ValidatingAdmissionPolicy"]),
    );
    expect(orderProblems(objects)).toEqual([]);
    for (const o of objects) expect(validateCoreObject(o), `${o.kind}/${o.metadata.name}`).toEqual([]);
    const images = new Set(
      objects.flatMap((o) => (o.spec?.template?.spec?.containers ?? []).map((c: Obj) => c.image as string)),
    );
    expect([...images]).toEqual([KUBE_RDMA_IMAGE]);
    const param = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "kube-rdma-image");
    expect(param?.data).toEqual({ image: KUBE_RDMA_IMAGE });
    for (const d of objects.filter((o) => o.kind === "DaemonSet")) {
      expect(d.spec.template.spec.affinity).toEqual(rdmaGpuNodeAffinity());
    }
  });

  test("a mirror set once in the overlay's images: reaches both DaemonSets and the collector policy's parameter", () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-mirror-"));
    cpSync("deploy", join(dir, "deploy"), { recursive: true });
    const file = join(dir, "deploy/overlays/default/kustomization.yaml");
    const digest = `sha256:${"ab".repeat(32)}`;
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        '    newTag: "0.1.0"',
        `    newName: registry.example.com/mirror/kube-rdma\n    digest: ${digest}`,
      ),
    );
    const objects = kustomizeBuild(join(dir, "deploy/overlays/default"));
    const mirror = `registry.example.com/mirror/kube-rdma@${digest}`;
    const images = objects.flatMap((o) => (o.spec?.template?.spec?.containers ?? []).map((c: Obj) => c.image));
    expect(images).toEqual([mirror, mirror]);
    expect(objects.find((o) => o.metadata.name === "kube-rdma-image")?.data).toEqual({ image: mirror });
  });

  test("deploy/overlays/metrics: the node's own address instead of 127.0.0.1, a Service and a PodMonitor selecting each DaemonSet's pods, nothing else changed", () => {
    // Kubernetes expands $(VAR) in command and args from the container's env; status.hostIP is the node's address
    // (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/,
    // https://kubernetes.io/docs/concepts/workloads/pods/downward-api/#downwardapi-fieldRef).
    const base = kustomizeBuild("deploy/overlays/default");
    const metrics = kustomizeBuild("deploy/overlays/metrics");
    for (const o of metrics) {
      if (o.kind !== "PodMonitor") expect(validateCoreObject(o), `${o.kind}/${o.metadata.name}`).toEqual([]);
    }
    const ports: Record<string, number> = {
      "kube-rdma-device-plugin": PLUGIN_METRICS_PORT,
      "kube-rdma-agent": AGENT_METRICS_PORT,
    };
    for (const ds of metrics.filter((o) => o.kind === "DaemonSet")) {
      const before = base.find((o) => o.kind === "DaemonSet" && o.metadata.name === ds.metadata.name)!;
      const port = ports[ds.metadata.name]!;
      const c = ds.spec.template.spec.containers[0];
      const b = before.spec.template.spec.containers[0];
      const argv = (x: Obj) => [...(x.command ?? []), ...(x.args ?? [])] as string[];
      // The same command line, only the metrics address moved from the node's loopback to its own address.
      expect(argv(b)).toContain(`127.0.0.1:${port}`);
      expect(argv(c)).toEqual(argv(b).map((a) => (a === `127.0.0.1:${port}` ? `$(NODE_IP):${port}` : a)));
      expect(c.env).toContainEqual({ name: "NODE_IP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } });
      expect(c.env.filter((e: Obj) => e.name !== "NODE_IP")).toEqual(b.env ?? []);
      expect(c.ports).toEqual([{ name: "metrics", containerPort: port, protocol: "TCP" }]);
      const { containers: _c, ...restAfter } = ds.spec.template.spec;
      const { containers: _b, ...restBefore } = before.spec.template.spec;
      expect(restAfter).toEqual(restBefore);
      const labels = ds.spec.template.metadata.labels as Record<string, string>;
      const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
      const svc = metrics.find((o) => o.kind === "Service" && o.metadata.namespace === ds.metadata.namespace)!;
      expect(selects(svc.spec.selector)).toBe(true);
      expect(svc.spec.ports).toEqual([{ name: "metrics", port, targetPort: "metrics" }]);
      const pm = metrics.find((o) => o.kind === "PodMonitor" && o.metadata.namespace === ds.metadata.namespace)!;
      expect(selects(pm.spec.selector.matchLabels)).toBe(true);
      expect(pm.spec.podMetricsEndpoints).toEqual([{ port: "metrics", path: "/metrics" }]);
    }
  });
});
