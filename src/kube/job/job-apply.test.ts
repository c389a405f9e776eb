/**
 * `job --apply`: the generated objects created through the API server (the enforcing test cluster: RBAC, served kinds),
 * a second run updating what exists, and a run that fails part way rolling back only what it created.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { parseAllDocuments } from "yaml";
import { captureIo } from "../../../test/support/io.js";
import { seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type InterceptedRequest, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { isPreflightSupportObject } from "../lint/preflight.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

async function _job(...args: string[]) {
  const io = captureIo();
  const code = await main(["job", ...args], io);
  const all = io.out ? parseAllDocuments(io.out).map((d) => d.toJS() as Any) : [];
  const docs = all.filter((d) => !isPreflightSupportObject(d));
  return { code, io, docs, yaml: io.out };
}

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("job --apply", () => {
  test("--apply creates the PyTorchJob through the API server", async () => {
    api = await startFakeApi(seedCluster());
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], io)).toBe(0);
    expect(io.out).toMatch(/created PyTorchJob\/rdma-pytorch in namespace team-a/);
    expect(api.store.get("pytorchjobs")?.[0]?.metadata).toMatchObject({ name: "rdma-pytorch", namespace: "team-a" });
    expect(api.requests).toContain("POST /apis/kubeflow.org/v1/namespaces/team-a/pytorchjobs");
  });

  test("--apply refused by RBAC → exit 2 naming create pytorchjobs.kubeflow.org", async () => {
    api = await startFakeApi(seedCluster(), { deny: [{ verb: "create", resource: "pytorchjobs" }] });
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/refused to create pytorchjobs\.kubeflow\.org rdma-pytorch in namespace default \(403/);
  });

  test("--apply when the cluster has no PyTorchJob CRD → exit 2 saying the kind is not served", async () => {
    api = await startFakeApi(seedCluster(), { unserved: ["pytorchjobs"] });
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig], io)).toBe(2);
    expect(io.err).toMatch(/does not serve kubeflow\.org\/v1 PyTorchJob/);
    expect(io.err).toMatch(/kube-rdma cluster/);
  });

  // A create of a name that exists is 409 AlreadyExists; a replace (PUT) must carry the object's current
  // resourceVersion: https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions and
  // https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency
  test("--apply run twice: the second run updates what exists (exit 0), one job in the cluster", async () => {
    api = await startFakeApi(seedCluster());
    expect(await main(["job", "nccl-tests", "--apply", "--kubeconfig", api.kubeconfig], captureIo())).toBe(0);
    const io = captureIo();
    expect(await main(["job", "nccl-tests", "--apply", "--kubeconfig", api.kubeconfig, "--nodes", "4"], io)).toBe(0);
    expect(io.out).toMatch(/updated MPIJob\/\S+ in namespace default/);
    expect(io.out).not.toMatch(/^created /m);
    const jobs = api.store.get("mpijobs") ?? [];
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.spec.mpiReplicaSpecs.Worker.replicas).toBe(4); // the second run's spec, not the first's
    expect(api.requests.some((r) => r.startsWith("PUT /apis/kubeflow.org/v2beta1/namespaces/default/mpijobs/"))).toBe(
      true,
    );
  });

  /** A server that answers 500 to the create of the PyTorchJob while `failJob` holds, as an etcd timeout does. */
  function failingJobCreate(state: { failJob: boolean }) {
    return (req: InterceptedRequest, res: ServerResponse) => {
      if (!(state.failJob && req.method === "POST" && req.plural === "pytorchjobs")) return false;
      res.writeHead(500, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          message: "Internal error occurred: etcdserver: request timed out",
          reason: "InternalError",
          code: 500,
        }),
      );
      return true;
    };
  }
  const PREFLIGHT_PLURALS = ["serviceaccounts", "roles", "rolebindings", "configmaps"];
  const inTeamA = (plurals: string[]) =>
    plurals.flatMap((p) => (api?.store.get(p) ?? []).filter((o) => o.metadata?.namespace === "team-a"));

  // Round 4 of the hostile-input probes: a 500 on the job left the ServiceAccount, Role, RoleBinding and ConfigMap
  // behind. A failed apply now deletes what it created; the judge of what is left is the server's store.
  test("--apply failing part way → exit 2; what it created is deleted again and named; a rerun completes the job", async () => {
    const state = { failJob: true };
    api = await startFakeApi(seedCluster(), { intercept: failingJobCreate(state) });
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], io)).toBe(2);
    expect(io.err).toMatch(/pytorchjobs/);
    expect(io.err).toMatch(/etcdserver: request timed out/);
    const deletes = api.requests.filter((r) => r.startsWith("DELETE "));
    expect(deletes.length).toBeGreaterThanOrEqual(PREFLIGHT_PLURALS.length);
    expect(inTeamA(PREFLIGHT_PLURALS)).toEqual([]);
    const rolledBack = /Rolled back: deleted (.*), which this run had created\./.exec(io.err)?.[1] ?? "";
    for (const p of PREFLIGHT_PLURALS)
      expect(rolledBack).toMatch(new RegExp(`\\b${KIND_OF[p]}/\\S+ in namespace team-a`));
    expect(io.err).not.toMatch(/left in place/);
    state.failJob = false;
    const again = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], again)).toBe(0);
    expect(again.out).toMatch(/created PyTorchJob\/rdma-pytorch in namespace team-a/);
    expect(again.out).toMatch(/created ServiceAccount\//);
  });

  test("--apply failing after updating what existed: the updated objects stay and are named, nothing is deleted", async () => {
    const state = { failJob: false };
    api = await startFakeApi(seedCluster(), { intercept: failingJobCreate(state) });
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], captureIo())).toBe(
      0,
    );
    // The job is gone (deleted by hand); its preflight objects stay: the second run updates them, then fails.
    api.store.set("pytorchjobs", []);
    state.failJob = true;
    const before = inTeamA(PREFLIGHT_PLURALS).length;
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], io)).toBe(2);
    expect(api.requests.filter((r) => r.startsWith("DELETE "))).toEqual([]);
    expect(inTeamA(PREFLIGHT_PLURALS)).toHaveLength(before);
    expect(io.err).toMatch(
      /Updated by this run before the failure \(they existed before and stay\): .*ServiceAccount\//,
    );
  });

  test("--apply whose rollback is refused names what could not be deleted, and why", async () => {
    const state = { failJob: true };
    const fail = failingJobCreate(state);
    api = await startFakeApi(seedCluster(), {
      intercept: (req, res) => {
        if (req.method === "DELETE" && req.plural === "roles") {
          res.writeHead(403, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403 }),
          );
          return true;
        }
        return fail(req, res);
      },
    });
    const io = captureIo();
    expect(await main(["job", "pytorch", "--apply", "--kubeconfig", api.kubeconfig, "-n", "team-a"], io)).toBe(2);
    const roles = inTeamA(["roles"]);
    expect(roles).toHaveLength(1);
    expect(io.err).toContain(
      `Could not be rolled back, left in place: Role/${roles[0]!.metadata.name} in namespace team-a (HTTP 403)`,
    );
    expect(inTeamA(["serviceaccounts", "rolebindings", "configmaps"])).toEqual([]);
  });
});

/** The kind of each plural the preflight objects use. */
const KIND_OF: Record<string, string> = {
  serviceaccounts: "ServiceAccount",
  roles: "Role",
  rolebindings: "RoleBinding",
  configmaps: "ConfigMap",
};
