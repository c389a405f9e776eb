/**
 * The ValidatingAdmissionPolicy that makes `create pods` in the fleet namespace worth no more than a collector pod:
 * without it, anyone allowed to create the collector pods there (the namespace must allow hostNetwork and hostPath)
 * could create any pod, root on every node. The policy admits exactly the collector's shape, built from the same
 * pod the code creates. deploy/fleet/admission-policy.yaml is this output (a test fails on drift; regenerate it
 * with `npm run schema`). Kubernetes ≥ 1.30 (admissionregistration.k8s.io/v1).
 */

import { KUBE_RDMA_IMAGE_REPOSITORY } from "../image.js";
import { renderYamlDocuments } from "../render-yaml.js";
import { collectorPod } from "./collector.js";

export const ADMISSION_POLICY_FILE = "deploy/fleet/admission-policy.yaml";
const NAME = "kube-rdma-collector-shape";
/** The image repository collector pods may run; pin a digest with `fleet verify --image REPO@sha256:…`. */
export const COLLECTOR_IMAGE_REPOSITORY = KUBE_RDMA_IMAGE_REPOSITORY;

const list = (items: readonly string[]) => `[${items.map((i) => `'${i}'`).join(", ")}]`;

/** The CEL rules, each with the message a refused pod gets. */
function validations(): { expression: string; message: string }[] {
  const shape = collectorPod({ node: "n", namespace: "kube-rdma", image: "i", runId: "r", timeoutSeconds: 1 }).spec!;
  const c = shape.containers[0]!;
  const hostPaths = (shape.volumes ?? []).map((v) => v.hostPath!.path);
  const c0 = "object.spec.containers[0]";
  const sc = `${c0}.securityContext`;
  return [
    {
      expression:
        "object.spec.containers.size() == 1 && (!has(object.spec.initContainers) || object.spec.initContainers.size() == 0) && (!has(object.spec.ephemeralContainers) || object.spec.ephemeralContainers.size() == 0)",
      message: "a collector pod has exactly one container, no init or ephemeral containers",
    },
    {
      expression: `${c0}.command == ${list(c.command!)} && !has(${c0}.args)`,
      message: `a collector pod runs exactly: ${c.command!.join(" ")}`,
    },
    {
      expression: `${c0}.image.startsWith('${COLLECTOR_IMAGE_REPOSITORY}:') || ${c0}.image.startsWith('${COLLECTOR_IMAGE_REPOSITORY}@sha256:')`,
      message: `a collector pod runs the kube-rdma image (${COLLECTOR_IMAGE_REPOSITORY}); edit this policy for a mirror`,
    },
    {
      expression: `has(${sc}) && ${sc}.allowPrivilegeEscalation == false && ${sc}.readOnlyRootFilesystem == true && (!has(${sc}.privileged) || ${sc}.privileged == false) && has(${sc}.capabilities) && ${sc}.capabilities.drop == ['ALL'] && !has(${sc}.capabilities.add)`,
      message:
        "a collector container drops every capability, is not privileged, cannot escalate and has a read-only root",
    },
    {
      expression:
        "has(object.spec.securityContext) && has(object.spec.securityContext.seccompProfile) && object.spec.securityContext.seccompProfile.type == 'RuntimeDefault'",
      message: "a collector pod runs under the RuntimeDefault seccomp profile",
    },
    {
      expression:
        "(!has(object.spec.hostPID) || object.spec.hostPID == false) && (!has(object.spec.hostIPC) || object.spec.hostIPC == false)",
      message: "a collector pod shares only the host network, not its PIDs or IPC",
    },
    {
      expression: `has(object.spec.volumes) && object.spec.volumes.all(v, has(v.hostPath) && v.hostPath.path in ${list(hostPaths)}) && has(${c0}.volumeMounts) && ${c0}.volumeMounts.all(m, has(m.readOnly) && m.readOnly == true)`,
      message: `a collector pod mounts only ${hostPaths.join(", ")} from the host, read-only`,
    },
    {
      expression: `has(${c0}.env) && ${c0}.env.exists(e, e.name == 'NVIDIA_VISIBLE_DEVICES' && has(e.value) && e.value == 'void') && !${c0}.env.exists(e, e.name == 'PATH' && has(e.value) && e.value.contains('/host')) && !has(${c0}.envFrom)`,
      message: "a collector pod gets no GPU (NVIDIA_VISIBLE_DEVICES=void) and no host directory on PATH",
    },
    {
      expression: "has(object.spec.automountServiceAccountToken) && object.spec.automountServiceAccountToken == false",
      message: "a collector pod mounts no API token",
    },
  ];
}

/** The policy and its binding to the fleet namespace. */
export function admissionPolicyObjects(namespace = "kube-rdma"): Record<string, unknown>[] {
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: NAME },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["pods", "pods/ephemeralcontainers"],
            },
          ],
        },
        validations: validations(),
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: NAME },
      spec: {
        policyName: NAME,
        validationActions: ["Deny"],
        matchResources: {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
        },
      },
    },
  ];
}

const HEADER = `# Admits only kube-rdma collector pods in the fleet namespace (kube-rdma): that namespace allows hostNetwork and
# hostPath, so without this policy \`create pods\` there would be root on every node. Kubernetes >= 1.30.
# Generated from src/kube/fleet/admission-policy.ts (\`npm run schema\`); do not edit by hand. A mirror of the image
# needs the image rule edited; pin the collector image by digest with \`fleet verify --image ${COLLECTOR_IMAGE_REPOSITORY}@sha256:DIGEST\`.
`;

export function renderAdmissionPolicy(): string {
  return renderYamlDocuments(HEADER, admissionPolicyObjects());
}
