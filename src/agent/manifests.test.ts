import { isCelError, run } from "@bufbuild/cel";
import { describe, expect, test } from "vitest";
import { NODE_STATE_DIR } from "../kube/node-placement.js";
import { TAINTED_LABEL } from "./cluster-io.js";
import { agentObjects, agentValidations } from "./manifests.js";
import { TAINT_KEY } from "./taint.js";

/**
 * The agent's admission policy evaluated for real (a CEL interpreter, as the API server runs it): what the agent
 * itself writes passes every rule, and each way a stolen agent token could reach further is refused by the rule
 * that says why. Variables are computed first, as the API server does.
 */
type Policy = { spec: { variables: { name: string; expression: string }[] } };
const policy = agentObjects().find((o) => o.kind === "ValidatingAdmissionPolicy") as unknown as Policy;
const rules = agentValidations();
const NODE_CLAIM = "authentication.kubernetes.io/node-name";

type Req = { resource: string; subResource?: string; node?: string };
function refusals(req: Req, object: unknown, oldObject: unknown = null): string[] {
  const request = {
    resource: { resource: req.resource },
    subResource: req.subResource ?? "",
    userInfo: {
      username: "system:serviceaccount:kube-rdma:kube-rdma-agent",
      extra: req.node ? { [NODE_CLAIM]: [req.node] } : {},
    },
  };
  const bindings = JSON.parse(JSON.stringify({ request, object, oldObject })) as Record<string, never>;
  const variables: Record<string, unknown> = {};
  for (const v of policy.spec.variables) variables[v.name] = run(v.expression, { ...bindings, variables } as never);
  return rules
    .filter((r) => {
      const out = run(r.expression, { ...bindings, variables } as never);
      if (isCelError(out)) throw new Error(`${r.message}: ${out.message}`);
      return out !== true;
    })
    .map((r) => r.message);
}

const ready = { type: "Ready", status: "True", reason: "KubeletReady" };
const rdma = { type: "RDMAReady", status: "False", reason: "PORT_DOWN" };
const node = (extra: Record<string, unknown> = {}) => ({
  metadata: { name: "gpu-n1", labels: { "kubernetes.io/hostname": "gpu-n1" } },
  spec: {},
  status: { conditions: [ready] },
  ...extra,
});

describe("the agent's admission policy: each agent only its own Node, report and events", () => {
  test("what the agent writes passes: its condition, its taint and label, its report, an event on its Node", () => {
    const withCondition = node({ status: { conditions: [ready, rdma] } });
    expect(refusals({ resource: "nodes", subResource: "status", node: "gpu-n1" }, withCondition, node())).toEqual([]);
    const tainted = node({
      metadata: { name: "gpu-n1", labels: { "kubernetes.io/hostname": "gpu-n1", [TAINTED_LABEL]: "true" } },
      spec: { taints: [{ key: TAINT_KEY, effect: "NoSchedule", value: "true" }] },
    });
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, tainted, node())).toEqual([]);
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, node(), tainted)).toEqual([]);
    expect(
      refusals({ resource: "configmaps", node: "gpu-n1" }, { metadata: { name: "kube-rdma-node-gpu-n1" } }),
    ).toEqual([]);
    const event = { involvedObject: { kind: "Node", name: "gpu-n1" } };
    expect(refusals({ resource: "events", node: "gpu-n1" }, event)).toEqual([]);
  });

  test("another node, another condition, another taint, a cordon, another label: each refused with its reason", () => {
    const other = { ...node(), metadata: { name: "gpu-n2", labels: {} } };
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, other, other)).toEqual([
      "an agent changes only the Node it runs on",
    ]);
    const notReady = node({ status: { conditions: [{ ...ready, status: "False" }] } });
    expect(refusals({ resource: "nodes", subResource: "status", node: "gpu-n1" }, notReady, node())).toEqual([
      "an agent changes only the RDMAReady condition",
    ]);
    const foreign = node({ spec: { taints: [{ key: "example.com/drain", effect: "NoExecute" }] } });
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, foreign, node())).toEqual([
      `an agent adds or removes only the ${TAINT_KEY} taint`,
    ]);
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, node({ spec: { unschedulable: true } }), node())).toEqual([
      "an agent never cordons a node",
    ]);
    const relabelled = node({ metadata: { name: "gpu-n1", labels: { "kubernetes.io/hostname": "evil" } } });
    expect(refusals({ resource: "nodes", node: "gpu-n1" }, relabelled, node())).toEqual([
      `an agent changes only the ${TAINTED_LABEL} label`,
    ]);
  });

  test("another node's report, an event about another object, a token without its node: refused", () => {
    expect(
      refusals({ resource: "configmaps", node: "gpu-n1" }, { metadata: { name: "kube-rdma-node-gpu-n2" } }),
    ).toEqual(["an agent writes only its own node's report (kube-rdma-node-NODE)"]);
    expect(refusals({ resource: "events", node: "gpu-n1" }, { involvedObject: { kind: "Pod", name: "x" } })).toEqual([
      "an agent reports events only about its own Node",
    ]);
    expect(refusals({ resource: "configmaps" }, { metadata: { name: "kube-rdma-node-" } })).toContain(
      "the agent's token names its node (Kubernetes >= 1.30, authentication.kubernetes.io/node-name)",
    );
  });

  test("the DaemonSet runs kube-rdma in the kube-rdma image, unprivileged, with read-only host mounts (but its quarantine directory)", () => {
    const ds = agentObjects().find((o) => o.kind === "DaemonSet") as {
      spec: { template: { spec: { containers: Record<string, never>[] } } };
    };
    const c = ds.spec.template.spec.containers[0] as unknown as {
      image: string;
      command: string[];
      securityContext: { capabilities: { drop: string[] }; allowPrivilegeEscalation: boolean; privileged?: boolean };
      volumeMounts: { readOnly: boolean; mountPath: string }[];
    };
    expect(c.image).toMatch(/^ghcr\.io\/kube-rdma\/kube-rdma:/);
    expect(c.command.slice(0, 2)).toEqual(["kube-rdma", "agent"]);
    expect(c.securityContext).toMatchObject({ capabilities: { drop: ["ALL"] }, allowPrivilegeEscalation: false });
    expect(c.securityContext.privileged).toBeUndefined();
    expect(c.volumeMounts.filter((m) => !m.readOnly).map((m) => m.mountPath)).toEqual([NODE_STATE_DIR]);
  });
});
