import { isCelError, run } from "@bufbuild/cel";
import { describe, expect, test } from "vitest";
import { admissionPolicyObjects } from "./admission-policy.js";
import { collectorPod } from "./collector.js";

/**
 * The policy's CEL rules evaluated for real (a CEL interpreter, as the API server runs them on the pod it is about to
 * admit): the collector pod `fleet verify` creates must pass every rule — one wrong rule and every collector pod is
 * refused in a real cluster — and each way of widening the pod must be refused by the rule that says why.
 */
type Validation = { expression: string; message: string };
const objects = admissionPolicyObjects() as {
  kind: string;
  data?: Record<string, string>;
  spec: { validations: Validation[] };
}[];
const policy = objects.find((o) => o.kind === "ValidatingAdmissionPolicy")!;
const rules = policy.spec.validations;
/** The policy's parameter: the ConfigMap naming the image the install runs. */
const params = objects.find((o) => o.kind === "ConfigMap")!;

/** The messages of the rules a pod fails; an evaluation error refuses too (the API server denies on error). */
function refusals(pod: unknown): string[] {
  const object = JSON.parse(JSON.stringify(pod)) as Record<string, never>;
  return rules.filter((r) => run(r.expression, { object, params }) !== true).map((r) => r.message);
}

/** Rules that do not even evaluate on the collector pod (a typo, a field that is not there): none may. */
function evaluationErrors(pod: unknown): string[] {
  const object = JSON.parse(JSON.stringify(pod)) as Record<string, never>;
  return rules.flatMap((r) => {
    const v = run(r.expression, { object, params });
    return isCelError(v) ? [`${r.message}: ${v.message}`] : [];
  });
}

const collector = () =>
  JSON.parse(
    JSON.stringify(
      collectorPod({
        node: "gpu-01",
        namespace: "kube-rdma",
        image: "ghcr.io/kube-rdma/kube-rdma:0.1.0",
        runId: "abc123",
        timeoutSeconds: 60,
      }),
    ),
  ) as {
    spec: {
      containers: Record<string, unknown>[];
      volumes: Record<string, unknown>[];
      [k: string]: unknown;
    };
  };
const rule = (start: string) => {
  const r = rules.find((x) => x.message.startsWith(start));
  if (!r) throw new Error(`no rule says "${start}…"`);
  return r.message;
};

describe("the fleet namespace's admission policy, evaluated", () => {
  test("the collector pod fleet verify creates passes every rule", () => {
    expect(evaluationErrors(collector())).toEqual([]);
    expect(refusals(collector())).toEqual([]);
  });

  const widened: [string, (p: ReturnType<typeof collector>) => void, string][] = [
    [
      "a sidecar container",
      (p) => p.spec.containers.push({ name: "x", image: "busybox" }),
      "a collector pod has exactly one",
    ],
    [
      "an init container",
      (p) => (p.spec.initContainers = [{ name: "x", image: "busybox" }]),
      "a collector pod has exactly one",
    ],
    [
      "a shell for a command",
      (p) => (p.spec.containers[0]!.command = ["sh", "-c", "cat /host/etc/shadow"]),
      "a collector pod runs exactly",
    ],
    ["extra args", (p) => (p.spec.containers[0]!.args = ["--root", "/"]), "a collector pod runs exactly"],
    [
      "another image",
      (p) => (p.spec.containers[0]!.image = "docker.io/library/busybox:1"),
      "a collector pod runs the image the install runs",
    ],
    [
      "a look-alike repository",
      (p) => (p.spec.containers[0]!.image = "ghcr.io/kube-rdma/kube-rdma-evil:0.1.0"),
      "a collector pod runs the image the install runs",
    ],
    [
      "another tag of the image",
      (p) => (p.spec.containers[0]!.image = "ghcr.io/kube-rdma/kube-rdma:0.0.9"),
      "a collector pod runs the image the install runs",
    ],
    [
      "privileged",
      (p) => ((p.spec.containers[0]!.securityContext as Record<string, unknown>).privileged = true),
      "a collector container drops every capability",
    ],
    [
      "CAP_SYS_ADMIN added",
      (p) =>
        ((p.spec.containers[0]!.securityContext as { capabilities: Record<string, unknown> }).capabilities.add = [
          "SYS_ADMIN",
        ]),
      "a collector container drops every capability",
    ],
    [
      "no securityContext",
      (p) => delete p.spec.containers[0]!.securityContext,
      "a collector container drops every capability",
    ],
    [
      "seccomp Unconfined",
      (p) => (p.spec.securityContext = { seccompProfile: { type: "Unconfined" } }),
      "a collector pod runs under the RuntimeDefault",
    ],
    ["the host's PIDs", (p) => (p.spec.hostPID = true), "a collector pod shares only the host network"],
    [
      "the host's root mounted",
      (p) => p.spec.volumes.push({ name: "root", hostPath: { path: "/" } }),
      "a collector pod mounts only",
    ],
    [
      "a writable mount",
      (p) => ((p.spec.containers[0]!.volumeMounts as Record<string, unknown>[])[0]!.readOnly = false),
      "a collector pod mounts only",
    ],
    [
      "every GPU",
      (p) =>
        ((p.spec.containers[0]!.env as { name: string; value: string }[]).find(
          (e) => e.name === "NVIDIA_VISIBLE_DEVICES",
        )!.value = "all"),
      "a collector pod gets no GPU",
    ],
    [
      "host binaries first on PATH",
      (p) => (p.spec.containers[0]!.env as unknown[]).push({ name: "PATH", value: "/host/usr/bin:/usr/bin" }),
      "a collector pod gets no GPU",
    ],
    ["an API token", (p) => (p.spec.automountServiceAccountToken = true), "a collector pod mounts no API token"],
  ];
  test.each(widened)("%s is refused, with the rule's message", (_what, widen, expected) => {
    const pod = collector();
    widen(pod);
    expect(refusals(pod)).toEqual([rule(expected)]);
  });
});
