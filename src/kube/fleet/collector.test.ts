import { describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { admissionPolicyObjects } from "./admission-policy.js";
import { COLLECTOR_HOST_COMMANDS, collectorPod } from "./collector.js";

const pod = collectorPod({
  node: "gpu-01",
  namespace: "kube-rdma",
  image: "ghcr.io/kube-rdma/kube-rdma:0.1.0",
  runId: "abc123",
  timeoutSeconds: 60,
});
const c = pod.spec!.containers[0]!;

describe("the collector pod has least privilege", () => {
  test("every capability dropped, RuntimeDefault seccomp, no escalation, read-only root, no token", () => {
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(c.securityContext!.capabilities!.add).toBeUndefined();
    expect(pod.spec!.securityContext?.seccompProfile?.type).toBe("RuntimeDefault");
    expect(pod.spec!.automountServiceAccountToken).toBe(false);
  });

  test("no GPU (NVIDIA_VISIBLE_DEVICES=void), no host binary on PATH: the two host commands by absolute path", () => {
    const env = Object.fromEntries(c.env!.map((e) => [e.name, e.value]));
    expect(env.NVIDIA_VISIBLE_DEVICES).toBe("void");
    expect(env.PATH).not.toContain("/host");
    expect(c.command).toEqual(expect.arrayContaining(["--host-commands", COLLECTOR_HOST_COMMANDS, "--own-proc"]));
  });

  test("no host /proc (hostNetwork gives the routes), only /sys, /dev/infiniband and /usr/bin read-only", () => {
    expect(pod.spec!.hostNetwork).toBe(true);
    expect(pod.spec!.volumes!.map((v) => v.hostPath!.path)).toEqual(["/sys", "/dev/infiniband", "/usr/bin"]);
    expect(c.volumeMounts!.every((m) => m.readOnly === true)).toBe(true);
  });

  test("the namespace's admission policy admits this exact command and these host paths, and binds to the fleet namespace", () => {
    const objects = admissionPolicyObjects() as {
      kind: string;
      spec: { validations: { expression: string }[]; failurePolicy: string } & Record<string, unknown>;
    }[];
    const policy = objects.find((o) => o.kind === "ValidatingAdmissionPolicy")!;
    const binding = objects.find((o) => o.kind === "ValidatingAdmissionPolicyBinding")!;
    const rules = policy.spec.validations.map((v) => v.expression).join("\n");
    expect(rules).toContain(`== [${c.command!.map((x) => `'${x}'`).join(", ")}]`);
    expect(rules).toContain("in ['/sys', '/dev/infiniband', '/usr/bin']");
    expect(rules).toContain("capabilities.drop == ['ALL']");
    expect(rules).toContain("e.value == 'void'");
    expect(policy.spec.failurePolicy).toBe("Fail");
    expect(binding.spec).toEqual({
      policyName: "kube-rdma-collector-shape",
      validationActions: ["Deny"],
      paramRef: { name: "kube-rdma-image", namespace: "kube-rdma", parameterNotFoundAction: "Deny" },
      matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-rdma" } } },
    });
    // Every rule is one CEL expression: balanced parentheses and brackets, quotes closed.
    for (const r of policy.spec.validations.map((v) => v.expression)) {
      let depth = 0;
      for (const ch of r.replace(/'[^']*'/g, "")) {
        depth += ch === "(" || ch === "[" ? 1 : ch === ")" || ch === "]" ? -1 : 0;
        expect(depth).toBeGreaterThanOrEqual(0);
      }
      expect(depth, r).toBe(0);
    }
    expect(parseAllDocuments(JSON.stringify(policy)).length).toBe(1);
  });
});
