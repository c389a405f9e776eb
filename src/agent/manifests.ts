/**
 * The node agent's install: its DaemonSet, the least RBAC it needs, and a ValidatingAdmissionPolicy that keeps each
 * agent to its own Node, its own report and events about its own Node. deploy/agent/agent.yaml is this output (a test
 * fails on drift; regenerate with `npm run schema`).
 *
 * Why the policy: RBAC cannot say "your own Node" — `patch nodes` is all nodes. Since Kubernetes 1.30 a pod's
 * service-account token carries the node it runs on (`authentication.kubernetes.io/node-name` in the user's extra
 * info, the ServiceAccountTokenPodNodeInfo feature, beta and on by default in 1.30:
 * https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#bound-service-account-tokens), and
 * a ValidatingAdmissionPolicy can compare it with the object (the pattern the Kubernetes docs give for node-scoped
 * agents: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/).
 */

import { KUBE_RDMA_IMAGE } from "../kube/image.js";
import {
  AGENT_METRICS_PORT,
  NODE_STATE_DIR,
  NODE_STATE_VOLUME,
  QUARANTINE_FILE,
  rdmaGpuNodeAffinity,
} from "../kube/node-placement.js";
import { renderYamlDocuments } from "../kube/render-yaml.js";
import { TAINTED_LABEL } from "./cluster-io.js";
import { CONDITION_TYPE } from "./condition.js";
import { TAINT_KEY } from "./taint.js";
import { SLOTS_LEASE } from "./taint-slots.js";

export const AGENT_MANIFEST_FILE = "deploy/agent/agent.yaml";
export const AGENT_NAME = "kube-rdma-agent";
const HOST_COMMANDS = "/host/usr/bin";

type Obj = Record<string, unknown>;

const labels = { "app.kubernetes.io/name": "kube-rdma", "app.kubernetes.io/component": "agent" };

function rbac(namespace: string): Obj[] {
  const subject = [{ kind: "ServiceAccount", name: AGENT_NAME, namespace }];
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: AGENT_NAME, namespace, labels } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: AGENT_NAME, labels },
      rules: [
        // get: the condition and taint it wrote; list: the breaker counts tainted nodes (by label).
        { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "patch"] },
        { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: AGENT_NAME, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: AGENT_NAME },
      subjects: subject,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: AGENT_NAME, namespace, labels },
      rules: [
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "create", "update"] },
        { apiGroups: ["apps"], resources: ["daemonsets"], resourceNames: [AGENT_NAME], verbs: ["get"] },
        // The taint breaker's slots (taint-slots.ts): one Lease, written with resourceVersion preconditions.
        // `create` cannot be limited by resourceNames (the name is not known at authorization time), so it is its
        // own rule; the RBAC docs: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          resourceNames: [SLOTS_LEASE],
          verbs: ["get", "update"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: AGENT_NAME, namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: AGENT_NAME },
      subjects: subject,
    },
    // Node events live in the default namespace, as the kubelet's do.
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: AGENT_NAME, namespace: "default", labels },
      rules: [{ apiGroups: [""], resources: ["events"], verbs: ["create"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: AGENT_NAME, namespace: "default", labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: AGENT_NAME },
      subjects: subject,
    },
  ];
}

const NODE_NAME_KEY = "authentication.kubernetes.io/node-name";
const without = (list: string, field: string, value: string) =>
  `(has(${list}) ? ${list}.filter(x, x.${field} != '${value}') : [])`;
const labelsBut = (o: string) => `(has(${o}.metadata.labels) ? ${o}.metadata.labels : {})`;

/** The CEL rules, each with the message a refused request gets. `variables.node` is the token's node. */
export function agentValidations(): { expression: string; message: string }[] {
  const res = "request.resource.resource";
  const isNode = `${res} == 'nodes' && request.subResource == ''`;
  const isStatus = `${res} == 'nodes' && request.subResource == 'status'`;
  return [
    {
      expression: "variables.node != ''",
      message: `the agent's token names its node (Kubernetes >= 1.30, ${NODE_NAME_KEY})`,
    },
    {
      expression: `${res} != 'nodes' || object.metadata.name == variables.node`,
      message: "an agent changes only the Node it runs on",
    },
    {
      expression: `!(${isStatus}) || ${without("object.status.conditions", "type", CONDITION_TYPE)} == ${without("oldObject.status.conditions", "type", CONDITION_TYPE)}`,
      message: `an agent changes only the ${CONDITION_TYPE} condition`,
    },
    {
      expression: `!(${isNode}) || ${without("object.spec.taints", "key", TAINT_KEY)} == ${without("oldObject.spec.taints", "key", TAINT_KEY)}`,
      message: `an agent adds or removes only the ${TAINT_KEY} taint`,
    },
    {
      expression: `!(${isNode}) || (${labelsBut("object")}.all(k, k == '${TAINTED_LABEL}' || (k in ${labelsBut("oldObject")} && ${labelsBut("oldObject")}[k] == ${labelsBut("object")}[k])) && ${labelsBut("oldObject")}.all(k, k == '${TAINTED_LABEL}' || k in ${labelsBut("object")}))`,
      message: `an agent changes only the ${TAINTED_LABEL} label`,
    },
    {
      expression: `!(${isNode}) || (has(object.spec.unschedulable) == has(oldObject.spec.unschedulable) && (!has(object.spec.unschedulable) || object.spec.unschedulable == oldObject.spec.unschedulable))`,
      message: "an agent never cordons a node",
    },
    {
      expression: `${res} != 'configmaps' || object.metadata.name.startsWith('kube-rdma-node-' + variables.node)`,
      message: "an agent writes only its own node's report (kube-rdma-node-NODE)",
    },
    {
      expression: `${res} != 'events' || (object.involvedObject.kind == 'Node' && object.involvedObject.name == variables.node)`,
      message: "an agent reports events only about its own Node",
    },
  ];
}

function admission(namespace: string): Obj[] {
  const name = `${AGENT_NAME}-own-node`;
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name, labels },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes", "nodes/status"] },
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] },
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["events"] },
          ],
        },
        matchConditions: [
          {
            name: "is-the-agent",
            expression: `request.userInfo.username == 'system:serviceaccount:${namespace}:${AGENT_NAME}'`,
          },
        ],
        variables: [
          {
            name: "node",
            expression: `'${NODE_NAME_KEY}' in request.userInfo.extra ? request.userInfo.extra['${NODE_NAME_KEY}'][0] : ''`,
          },
        ],
        validations: agentValidations(),
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name, labels },
      spec: { policyName: name, validationActions: ["Deny"] },
    },
  ];
}

/**
 * The DaemonSet: the host's /sys, /dev/infiniband and /usr/bin read-only under /host, the host network (its own
 * /proc then shows the node's routes), no privilege: every capability dropped, read-only root filesystem, the
 * runtime's default seccomp profile, no GPU (NVIDIA_VISIBLE_DEVICES=void). No check needs more: the sysfs and
 * /proc files verify reads are world-readable, and the PCIe ACS check (which needs root to read config space beyond
 * 64 bytes) says it was skipped rather than failing.
 */
function daemonSet(namespace: string, image: string): Obj {
  const mounts = [
    ["host-sys", "/sys", "/host/sys", "Directory"],
    ["host-dev-infiniband", "/dev/infiniband", "/host/dev/infiniband", "DirectoryOrCreate"],
    ["host-usr-bin", "/usr/bin", HOST_COMMANDS, "Directory"],
  ] as const;
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: AGENT_NAME, namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "10%" } },
      template: {
        metadata: { labels, annotations: { "sidecar.istio.io/inject": "false" } },
        spec: {
          serviceAccountName: AGENT_NAME,
          hostNetwork: true,
          dnsPolicy: "ClusterFirstWithHostNet",
          priorityClassName: "system-node-critical",
          nodeSelector: { "kubernetes.io/os": "linux" },
          affinity: rdmaGpuNodeAffinity(),
          tolerations: [{ operator: "Exists" }],
          securityContext: { seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "agent",
              image,
              imagePullPolicy: "IfNotPresent",
              command: [
                "kube-rdma",
                "agent",
                "--root",
                "/host",
                "--own-proc",
                "--host-commands",
                HOST_COMMANDS,
                "--quarantine-file",
                QUARANTINE_FILE,
                "--metrics-addr",
                `127.0.0.1:${AGENT_METRICS_PORT}`,
              ],
              env: [
                { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                { name: "NVIDIA_VISIBLE_DEVICES", value: "void" },
              ],
              resources: { requests: { cpu: "20m", memory: "64Mi" }, limits: { memory: "192Mi" } },
              securityContext: {
                // uid 0 only to write the quarantine into the root-owned host directory; no capability.
                runAsUser: 0,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
                seccompProfile: { type: "RuntimeDefault" },
              },
              volumeMounts: [
                ...mounts.map(([name, , mountPath]) => ({ name, mountPath, readOnly: true })),
                { name: NODE_STATE_VOLUME, mountPath: NODE_STATE_DIR },
              ],
            },
          ],
          volumes: [
            ...mounts.map(([name, path, , type]) => ({ name, hostPath: { path, type } })),
            { name: NODE_STATE_VOLUME, hostPath: { path: NODE_STATE_DIR, type: "DirectoryOrCreate" } },
          ],
        },
      },
    },
  };
}

export function agentObjects(namespace = "kube-rdma", image = KUBE_RDMA_IMAGE): Obj[] {
  return [...rbac(namespace), ...admission(namespace), daemonSet(namespace, image)];
}

const HEADER = `# The kube-rdma node agent: a DaemonSet that checks each RDMA GPU node every 5 minutes and keeps the Node
# condition RDMAReady, Events and a per-node report (ConfigMap kube-rdma-node-NODE) that \`fleet verify\` reads.
# Least privilege: RBAC for nodes, nodes/status, its reports and node events, and an admission policy that keeps each
# agent to its own Node (Kubernetes >= 1.30). The namespace kube-rdma must exist. Add --taint to the command to
# taint failing nodes NoSchedule (at most 10 % of them at once). Runs only on RDMA GPU nodes (labels
# nvidia.com/gpu.present=true and feature.node.kubernetes.io/pci-15b3.present=true, or kube-rdma.io/rdma-gpu-node=true
# set by hand) and writes the HCAs in error to /var/lib/kube-rdma/quarantine.json, which the device plugin reads.
# Generated from src/agent/manifests.ts (\`npm run schema\`); do not edit by hand.
`;

export function renderAgentManifests(): string {
  return renderYamlDocuments(HEADER, agentObjects());
}
