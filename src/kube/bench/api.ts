/**
 * The API calls `fleet bench` makes, each tied to the run's signal: an interrupt (SIGINT, SIGTERM) ends the request
 * in flight, its body included, and every call also ends at its own deadline. MPIJobs go through the generated
 * custom-objects client, whose calls take per-call options (the generic object client cannot carry a signal).
 */
import { CustomObjectsApi, type KubernetesObject, type V1Pod } from "@kubernetes/client-node";
import type { KubeClients } from "../api/client.js";
import { REQUEST_TIMEOUT_MS } from "../api/client.js";
import { abortable } from "../api/retry.js";
import type { MPIJob } from "../job/types.js";
import { BENCH_RUN_LABEL, MPI_JOB_NAME_LABEL, MPI_JOB_ROLE_LABEL } from "./manifests.js";

const MPI = { group: "kubeflow.org", version: "v2beta1", plural: "mpijobs" } as const;

/**
 * The most of a launcher's log that is read: a rail test of 8 HCAs prints about 30 KB, a pair test about 4 KB; a
 * launcher that loops printing cannot fill the memory of the run.
 */
export const LAUNCHER_LOG_LIMIT_BYTES = 4 * 1024 * 1024;

/** One signal for one call: the caller's (an interrupt, a job's deadline) or the request's own deadline. */
export function callSignal(signal: AbortSignal | undefined, timeoutMs = REQUEST_TIMEOUT_MS): AbortSignal {
  const own = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, own]) : own;
}

export type BenchApi = ReturnType<typeof benchApi>;

const LAUNCHER_SELECTOR = `${MPI_JOB_ROLE_LABEL}=launcher`;

export function benchApi(clients: KubeClients, namespace: string) {
  const custom = clients.target.kc.makeApiClient(CustomObjectsApi);
  const opts = (signal?: AbortSignal, timeoutMs?: number) => abortable(callSignal(signal, timeoutMs));
  const podList = (labelSelector: string, signal?: AbortSignal) =>
    clients.core.listNamespacedPod({ namespace, labelSelector }, opts(signal));
  const pods = async (labelSelector: string, signal?: AbortSignal): Promise<V1Pod[]> =>
    (await podList(labelSelector, signal)).items;
  const runJobs = async (runId: string, signal?: AbortSignal) => {
    const list = (await custom.listNamespacedCustomObject(
      { ...MPI, namespace, labelSelector: `${BENCH_RUN_LABEL}=${runId}` },
      opts(signal),
    )) as { items?: KubernetesObject[]; metadata?: { resourceVersion?: string } };
    return {
      items: Array.isArray(list?.items) ? list.items : [],
      resourceVersion: String(list?.metadata?.resourceVersion ?? ""),
    };
  };
  return {
    createJob: (body: MPIJob, signal?: AbortSignal) =>
      custom.createNamespacedCustomObject({ ...MPI, namespace, body }, opts(signal)) as Promise<KubernetesObject>,
    /** Every MPIJob of the run: one request, whatever the number of jobs. */
    listRunJobs: async (runId: string, signal?: AbortSignal): Promise<KubernetesObject[]> =>
      (await runJobs(runId, signal)).items,
    /** The same, with the list's resourceVersion (where a watch of them starts). */
    listRunJobsVersioned: runJobs,
    /** Every launcher pod in the bench namespace: one request, whatever the number of jobs. */
    listLaunchers: (signal?: AbortSignal) => pods(LAUNCHER_SELECTOR, signal),
    /** The same, with the list's resourceVersion. */
    listLaunchersVersioned: async (signal?: AbortSignal) => {
      const list = await podList(LAUNCHER_SELECTOR, signal);
      return { items: list.items, resourceVersion: String(list.metadata?.resourceVersion ?? "") };
    },
    /** Where a watch of the run's MPIJobs and of the launcher pods goes, and with which selector. */
    watchPaths: (runId: string) => ({
      jobs: {
        path: `/apis/${MPI.group}/${MPI.version}/namespaces/${namespace}/${MPI.plural}`,
        labelSelector: `${BENCH_RUN_LABEL}=${runId}`,
      },
      launchers: { path: `/api/v1/namespaces/${namespace}/pods`, labelSelector: LAUNCHER_SELECTOR },
    }),
    listJobPods: (name: string, signal?: AbortSignal) => pods(`${MPI_JOB_NAME_LABEL}=${name}`, signal),
    readLog: (pod: string, o: { previous?: boolean; signal?: AbortSignal; timeoutMs?: number }) =>
      clients.core.readNamespacedPodLog(
        {
          name: pod,
          namespace,
          container: "launcher",
          limitBytes: LAUNCHER_LOG_LIMIT_BYTES,
          ...(o.previous ? { previous: true } : {}),
        },
        opts(o.signal, o.timeoutMs),
      ),
    deleteJob: (name: string, signal?: AbortSignal) =>
      custom.deleteNamespacedCustomObject(
        { ...MPI, namespace, name, gracePeriodSeconds: 0, propagationPolicy: "Background" },
        opts(signal),
      ),
    /** Volcano's HyperNodes (cluster-scoped), the network tiers where Volcano's network topology is installed. */
    listHyperNodes: async (signal?: AbortSignal): Promise<KubernetesObject[]> => {
      const list = (await custom.listClusterCustomObject(
        { group: "topology.volcano.sh", version: "v1alpha1", plural: "hypernodes" },
        opts(signal),
      )) as { items?: KubernetesObject[] };
      return Array.isArray(list?.items) ? list.items : [];
    },
    deletePod: (name: string, signal?: AbortSignal) =>
      clients.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }, opts(signal)),
  };
}
