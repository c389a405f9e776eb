/**
 * The ValidatingAdmissionPolicy that makes `create pods` in the fleet namespace worth no more than a collector pod:
 * without it, anyone allowed to create the collector pods there (the namespace must allow hostNetwork and hostPath)
 * could create any pod, root on every node. The policy admits exactly the collector's shape, built from the same
 * pod the code creates. deploy/fleet/admission-policy.yaml is this output (a test fails on drift; regenerate it
 * with `npm run schema`). Kubernetes ≥ 1.30 (admissionregistration.k8s.io/v1).
 */

import { IMAGE_CONFIGMAP, IMAGE_CONFIGMAP_KEY, KUBE_RDMA_IMAGE } from "../image.js";
import { renderYamlDocuments } from "../render-yaml.js";
import { collectorPod } from "./collector.js";

export const ADMISSION_POLICY_FILE = "deploy/fleet/admission-policy.yaml";
const NAME = "kube-rdma-collector-shape";
/**
 * Pods the policy does not judge: those the DaemonSet controller creates (the node agent's; only a cluster admin can
 * create a DaemonSet in the fleet namespace, no shipped role grants it). The controller's identity is its own
 * ServiceAccount when kube-controller-manager runs with --use-service-account-credentials (kubeadm and the managed
 * offerings do), else the controller manager's user:
 * https://kubernetes.io/docs/reference/access-authn-authz/rbac/#controller-roles
 */
export const WORKLOAD_CONTROLLERS = [
  "system:serviceaccount:kube-system:daemon-set-controller",
  "system:kube-controller-manager",
];

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
      expression: `${c0}.image == params.data['${IMAGE_CONFIGMAP_KEY}']`,
      message: `a collector pod runs the image the install runs (ConfigMap ${IMAGE_CONFIGMAP}, key ${IMAGE_CONFIGMAP_KEY}; the CLI's default is $KUBE_RDMA_IMAGE or ${KUBE_RDMA_IMAGE})`,
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

/**
 * The policy, its binding to the fleet namespace, and its parameter: the ConfigMap naming the image the install runs
 * (deploy/overlays/default's `replacements` copy the agent DaemonSet's image into it, so a mirror set in the
 * overlay's `images:` reaches the policy too).
 */
export function admissionPolicyObjects(namespace = "kube-rdma", image = KUBE_RDMA_IMAGE): Record<string, unknown>[] {
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: IMAGE_CONFIGMAP, namespace, labels: { "app.kubernetes.io/name": "kube-rdma" } },
      data: { [IMAGE_CONFIGMAP_KEY]: image },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: NAME },
      spec: {
        failurePolicy: "Fail",
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConditions: [
          {
            name: "not-the-daemonset-controller",
            expression: `!(request.userInfo.username in ${list(WORKLOAD_CONTROLLERS)})`,
          },
        ],
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
        paramRef: { name: IMAGE_CONFIGMAP, namespace, parameterNotFoundAction: "Deny" },
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
# Pods the DaemonSet controller creates there (the node agent's) are not judged: only an admin can create a DaemonSet.
# The image rule compares with ConfigMap ${IMAGE_CONFIGMAP}: deploy/overlays/default copies the agent's image into it, so
# a mirror or a digest set once in the overlay's images: reaches it; give the CLI the same with KUBE_RDMA_IMAGE.
# Generated from src/kube/fleet/admission-policy.ts (\`npm run schema\`); do not edit by hand.
`;

export function renderAdmissionPolicy(): string {
  return renderYamlDocuments(HEADER, admissionPolicyObjects());
}
